package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/fuzz/procs"
	"github.com/txlab/txlab/report"
)

// asTxlab makes the test binary txlab: fuzz --procs runs its own program
// (selfExecutable), which in a test is the test binary.
const asTxlab = "TXLAB_TEST_RUN_AS_TXLAB"

func TestMain(m *testing.M) {
	if os.Getenv(asTxlab) != "" {
		main()
	}
	os.Setenv(asTxlab, "1")
	// Tests that run a case without --out write their bundles where a
	// user's would go, the package directory: the test run takes away
	// what it made there.
	_, err := os.Stat(report.DefaultDir)
	existed := err == nil
	code := m.Run()
	if !existed {
		os.RemoveAll(report.DefaultDir)
	}
	os.Exit(code)
}

// signatures are the signature counts of a bundle directory (none when the
// campaign wrote none).
func signatures(t *testing.T, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	data, err := os.ReadFile(filepath.Join(dir, report.SummaryFile))
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	var sum []report.SignatureCount
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	for _, s := range sum {
		out[string(s.Verdict)+" "+s.Signature] += s.Count
	}
	return out
}

// TestFuzzProcs: for a fixed seed and case count, --procs 2 runs the cases
// of one worker process, its summary is the sum of the two shards' run
// alone, its bundle directory has the same signatures, and no worker
// directory is left behind.
func TestFuzzProcs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the worker processes' directories go
	campaign := []string{"--cases", "60", "--seed", "11", "--duration", "0", "--reduce=false"}
	dirs := t.TempDir()
	out := func(name string) []string { return []string{"--out", filepath.Join(dirs, name)} }
	procs := fuzzSummary(t, append(append([]string{"--procs", "2"}, campaign...), out("procs")...)...)
	one := fuzzSummary(t, append(append([]string{"--workers", "1"}, campaign...), out("one")...)...)
	var shards []*fuzz.Summary
	for _, sh := range []string{"1/2", "2/2"} {
		s := fuzzSummary(t, append(append([]string{"--workers", "1", "--shard", sh}, campaign...), out("shard")...)...)
		shards = append(shards, &s)
	}
	sum := fuzz.Merge(0, shards...)

	if procs.Cases != 60 || one.Cases != 60 || procs.Procs != 2 || procs.Workers != 2 || procs.Shard != "" || procs.Seed != 11 {
		t.Fatalf("--procs 2: %d cases, %d processes, %d workers, shard %q, seed %d; --workers 1: %d cases",
			procs.Cases, procs.Procs, procs.Workers, procs.Shard, procs.Seed, one.Cases)
	}
	if shards[0].Cases == 0 || shards[1].Cases == 0 {
		t.Fatalf("a shard ran nothing: %d and %d cases", shards[0].Cases, shards[1].Cases)
	}
	for _, want := range []struct {
		name string
		s    *fuzz.Summary
	}{{"the shards' sum", sum}, {"one process", &one}} {
		w := want.s
		if procs.Rounds != w.Rounds || procs.Transactions != w.Transactions || procs.Statements != w.Statements ||
			len(procs.Findings) != len(w.Findings) || !maps.Equal(procs.Features, w.Features) || procs.InvalidCount != w.InvalidCount {
			t.Errorf("--procs 2 against %s: rounds %d/%d, transactions %d/%d, statements %d/%d, findings %d/%d, invalid %d/%d, features %v/%v",
				want.name, procs.Rounds, w.Rounds, procs.Transactions, w.Transactions, procs.Statements, w.Statements,
				len(procs.Findings), len(w.Findings), procs.InvalidCount, w.InvalidCount, procs.Features, w.Features)
		}
		for name, c := range w.ByOracle {
			p := procs.ByOracle[name]
			if p == nil || p.Judged != c.Judged || p.JudgedToEnd != c.JudgedToEnd || p.Findings != c.Findings || !maps.Equal(p.Undecided, c.Undecided) {
				t.Errorf("--procs 2 against %s: %s %+v, want %+v", want.name, name, p, c)
			}
		}
	}
	if got, want := signatures(t, filepath.Join(dirs, "procs")), signatures(t, filepath.Join(dirs, "one")); !maps.Equal(got, want) {
		t.Errorf("--procs 2 found signatures %v, one process %v", got, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// TestFuzzProcsInterrupted: Ctrl-C stops every worker process, and what
// they ran is summed and reported as interrupted, exit 0.
func TestFuzzProcsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	var stdout, stderr strings.Builder
	code := run(ctx, []string{"fuzz", "--procs", "2", "--duration", "0", "--json", "--out", t.TempDir()}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var s fuzz.Summary
	if err := json.Unmarshal([]byte(stdout.String()), &s); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if !s.Interrupted || s.Error != "" || s.Procs != 2 || s.Cases == 0 {
		t.Errorf("interrupted %v, error %q, %d processes, %d cases", s.Interrupted, s.Error, s.Procs, s.Cases)
	}
	if strings.Count(stderr.String(), "seed ") != 1 {
		t.Errorf("the seed is not printed once:\n%s", stderr.String())
	}
}

// TestFuzzProcsWorkerFails: a worker process that fails stops the others;
// the summary of what ran says so and one line names the failure, exit 2.
func TestFuzzProcsWorkerFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the failing worker process is a shell script")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Worker 2/2 fails at once; worker 1/2 would run until stopped.
	script := filepath.Join(t.TempDir(), "txlab")
	body := "#!/bin/sh\ncase \"$*\" in *'--shard 2/2'*) sleep 1; echo 'txlab: the disk is on fire' >&2; exit 2;; esac\nexec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	selfExecutable = func() (string, error) { return script, nil }
	defer func() { selfExecutable = os.Executable }()
	code, out, errOut := txlab(t, "fuzz", "--procs", "2", "--duration", "0", "--json", "--out", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "txlab: worker process 2/2: the disk is on fire (repeat with --seed ") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var s fuzz.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(s.Error, "the disk is on fire") || s.Interrupted || s.Procs != 1 || s.Cases == 0 {
		t.Errorf("error %q, interrupted %v, %d processes summed, %d cases", s.Error, s.Interrupted, s.Procs, s.Cases)
	}
}

// TestFuzzProcsRefused: what --procs does not combine with is refused
// before anything runs.
func TestFuzzProcsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--procs", "2", "--shard", "1/2", "--seed", "1"}, "--procs with --shard"},
		{[]string{"--procs", "0"}, "--procs must be at least 1"},
		{[]string{"--procs", "2", "--db", "mariadb"}, "--procs runs embedded SQLite only"},
	} {
		code, _, errOut := txlab(t, append([]string{"fuzz"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestWorkerArgs: a worker process gets the command line's flags as given,
// repeated ones each time, and the parent's per-process ones instead of
// --procs, --seed, --workers, --out and --json.
func TestWorkerArgs(t *testing.T) {
	cmd, _, err := newRoot(&profiles{}).Find([]string{"fuzz"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags([]string{"--procs", "3", "--json", "--out", "o", "--seed", "5", "-v", "--set", "a=1", "--set", "b=2", "--features", "none", "--duration", "90s"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(workerArgs(cmd, procs.Campaign{Procs: 3, Workers: 2, Seed: 5, Out: "o"}, 1, "tmp/shard-2"), " ")
	for _, want := range []string{"--verbose=true", "--set=a=1 --set=b=2", "--features=none", "--duration=1m30s",
		"--shard 2/3 --seed 5 --workers 2 --out tmp/shard-2 --procs-worker o"} {
		if !strings.Contains(got, want) {
			t.Errorf("worker args %q lack %q", got, want)
		}
	}
	for _, not := range []string{"--procs=", "--json", "--out=o", "--seed=5"} {
		if strings.Contains(got, not) {
			t.Errorf("worker args %q hold %q", got, not)
		}
	}
}

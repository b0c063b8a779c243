package main

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/replay"
	"github.com/txlab/txlab/testcase"
)

// TestFuzzJudgesByDefault runs the README's main job briefly on each DBMS:
// without --oracle, every relational oracle judges every case and the JSON
// summary names them with their counts.
func TestFuzzJudgesByDefault(t *testing.T) {
	for _, db := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(db, func(t *testing.T) {
			if db != "sqlite" {
				localdbtest.Require(t, localdb.Kind(db))
			}
			s := fuzzSummary(t, "--db", db, "--cases", "6", "--seed", "4", "--out", t.TempDir())
			if len(s.Oracles) < 2 || s.Oracles[0] != "wss" || s.Oracles[1] != "isorel" {
				t.Fatalf("oracles %v, want wss and isorel", s.Oracles)
			}
			for _, name := range s.Oracles {
				c := s.ByOracle[name]
				if c == nil || c.Judged != s.Cases-s.SetupFailures || c.Judged == 0 {
					t.Errorf("%s judged %+v of %d cases", name, c, s.Cases)
				}
			}
			if s.Cases != 6 || s.Rounds == 0 || s.Statements == 0 {
				t.Errorf("summary %+v", s)
			}
		})
	}
	// --oracle none only runs; the summary says no oracle judged.
	s := fuzzSummary(t, "--oracle", "none", "--cases", "3")
	if len(s.Oracles) != 0 || s.Cases != 3 {
		t.Errorf("--oracle none: %+v", s)
	}
	code, out, _ := txlab(t, "fuzz", "--oracle", "none", "--cases", "2")
	if code != 0 || !strings.Contains(out, "oracles       none") {
		t.Errorf("--oracle none text summary (exit %d):\n%s", code, out)
	}
}

// TestRunBatchGoesOn replays a batch with an unparsable case, a case whose
// setup fails and a case at a level the target lacks between good ones: the
// good ones run, each bad one gets its line on stderr, and the exit status
// is 2.
func TestRunBatchGoesOn(t *testing.T) {
	good := "../../examples/sqlite-write-busy.txn"
	code, out, stderr := txlab(t, "run", "--json", "testdata/unparsable.txn", good, "testdata/setup-fails.txn", "testdata/read-committed.txn", good)
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s", code, stderr)
	}
	var ran, failed int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not JSON Lines: %v\n%s", err, out)
		}
		if _, ok := obj["error"]; ok {
			failed++
		} else if obj["case"] == good {
			ran++
		}
	}
	if ran != 2 || failed != 3 {
		t.Errorf("%d good cases ran and %d failed, want 2 and 3:\n%s", ran, failed, out)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "unparsable.txn") || !strings.Contains(lines[1], "setup statement 2") ||
		!strings.Contains(lines[2], "does not support isolation level read-committed") {
		t.Errorf("stderr:\n%s\nwant one line per failed case, naming it", stderr)
	}
}

// TestFuzzServerDies kills the server under a running campaign: txlab must
// print the summary of what ran, then one line saying what failed, and exit
// 2 — never an ordinary-looking summary.
func TestFuzzServerDies(t *testing.T) {
	for _, tt := range []struct {
		kind localdb.Kind
		args []string
	}{
		{localdb.Postgres, nil},
		{localdb.MariaDB, []string{"--oracle", "mt"}},
		{localdb.Postgres, []string{"--oracle", "isorel", "--mode", "stress"}},
	} {
		t.Run(string(tt.kind)+strings.Join(tt.args, ""), func(t *testing.T) {
			srv := killable(t, tt.kind)
			done := make(chan [3]any, 1)
			reports := t.TempDir()
			go func() {
				args := append([]string{"fuzz", "--db", srv.DSN(), "--duration", "60s", "--out", reports}, tt.args...)
				code, out, stderr := txlab(t, args...)
				done <- [3]any{code, out, stderr}
			}()
			time.Sleep(3 * time.Second)
			if err := syscall.Kill(srv.PID(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			var r [3]any
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("fuzz did not end 30 s after the server died")
			}
			code, out, stderr := r[0].(int), r[1].(string), r[2].(string)
			if el := time.Since(killed); el > 10*time.Second {
				t.Errorf("fuzz took %v to notice the dead server", el)
			}
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout %s\nstderr %s", code, out, stderr)
			}
			if !strings.Contains(out, "txlab fuzz on") || !strings.Contains(out, "(stopped by an error)") {
				t.Errorf("no summary saying the run stopped:\n%s", out)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "txlab: ") {
				t.Errorf("last stderr line %q does not say what failed", last)
			}
			// A generated case cut short by the fault is kept for replay.
			if tt.args == nil {
				_, path, ok := strings.Cut(last, "the case is saved in ")
				path, _, _ = strings.Cut(path, " (repeat with")
				if !ok {
					t.Errorf("last stderr line %q does not say where the case is", last)
				} else if _, err := testcase.ParseFile(path); err != nil {
					t.Errorf("the saved case: %v", err)
				}
			}
			t.Logf("%d bundles written before the server died", bundlesIntact(t, reports))
		})
	}
}

// bundlesIntact checks every finding bundle under dir: report.json is valid
// JSON and case.txn, where there is one, parses. It returns how many there
// are.
func bundlesIntact(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "report.json"))
		if err != nil || !json.Valid(b) {
			t.Errorf("bundle %s: report.json unreadable or not JSON (%v)", e.Name(), err)
		}
		if c := filepath.Join(dir, e.Name(), "case.txn"); fileExists(c) {
			if _, err := testcase.ParseFile(c); err != nil {
				t.Errorf("bundle %s: case.txn does not parse: %v", e.Name(), err)
			}
		}
	}
	return n
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// killable starts a server of the test's own, which the test may kill.
func killable(t *testing.T, kind localdb.Kind) *localdb.Server {
	localdbtest.Require(t, kind)
	srv, err := localdb.Start(t.Context(), kind, localdb.Options{Log: t.Output()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() }) // it may have been killed: no error to check
	return srv
}

// TestFuzzJSONError: with --json the summary of a failed run carries the
// error, so a script sees it as well as the exit status.
func TestFuzzJSONError(t *testing.T) {
	srv := killable(t, localdb.Postgres)
	done := make(chan string, 1)
	go func() {
		_, out, _ := txlab(t, "fuzz", "--json", "--db", srv.DSN(), "--duration", "60s", "--oracle", "none")
		done <- out
	}()
	time.Sleep(2 * time.Second)
	if err := syscall.Kill(srv.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var out string
	select {
	case out = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("fuzz did not end after the server died")
	}
	var s fuzz.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	if s.Error == "" || s.Interrupted {
		t.Errorf("summary of a failed run: error %q, interrupted %v", s.Error, s.Interrupted)
	}
}

// TestRunShowsStatementsAsWritten: `txlab run` shows the plain execution,
// also when IsoRel judges an instrumented one of its own: no rewritten SQL,
// no hidden columns, no connection of txlab's own.
func TestRunShowsStatementsAsWritten(t *testing.T) {
	code, out, stderr := txlab(t, "run", "--oracle", "isorel", "--out", t.TempDir(), "../../oracle/isorel/testdata/write-skew.txn")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "txlab_") || strings.Contains(out, "0>") {
		t.Errorf("the schedule shows txlab's instrumentation:\n%s", out)
	}
	if !strings.Contains(out, "1>  BEGIN;") {
		t.Errorf("the schedule lacks the case's statements:\n%s", out)
	}
	// -v adds IsoRel's own execution, with the statements it really sent.
	code, out, stderr = txlab(t, "run", "-v", "--oracle", "isorel", "--out", t.TempDir(), "../../oracle/isorel/testdata/write-skew.txn")
	if code != 0 && code != 1 {
		t.Fatalf("-v: exit %d: %s", code, stderr)
	}
	plain, own, ok := strings.Cut(out, "isorel's own execution (the statements it sent):")
	if !ok || strings.Contains(plain, "txlab_") || !strings.Contains(own, "sent: UPDATE doctors SET oncall = 0, txlab_wlist") {
		t.Errorf("-v: want the plain schedule, then IsoRel's rewritten statements:\n%s", out)
	}
	// --json: IsoRel's own execution names the case's statements as
	// written, with what it sent beside them (Plan.Strip's test covers
	// what it adds, which SQLite needs none of).
	code, out, stderr = txlab(t, "run", "--json", "--oracle", "isorel", "--out", t.TempDir(), "../../oracle/isorel/testdata/write-skew.txn")
	if code != 0 && code != 1 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var res replay.CaseResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	c, err := testcase.ParseFile("../../oracle/isorel/testdata/write-skew.txn")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Own) != 1 || res.Own[0].Oracle != "isorel" {
		t.Fatalf("--json own = %+v, want IsoRel's execution", res.Own)
	}
	var sent int
	for _, ev := range res.Own[0].Events {
		switch {
		case ev.Added, ev.Implicit:
		case ev.Step < 0 || ev.Step >= len(c.Steps) || ev.SQL != c.Steps[ev.Step].SQL:
			t.Errorf("own event %+v does not name step %d as written", ev, ev.Step)
		case strings.Contains(ev.Sent, "txlab_"):
			sent++
		}
	}
	if sent == 0 {
		t.Errorf("own events: none with the rewritten text:\n%s", out)
	}
}

func TestVersionJSON(t *testing.T) {
	code, out, stderr := txlab(t, "version", "--json", "--db", "sqlite")
	var v struct {
		Version string
		Target  struct{ DBMS string }
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Version == "" || v.Target.DBMS != "sqlite" {
		t.Errorf("version --json: exit %d, %v, %+v\n%s%s", code, err, v, out, stderr)
	}
}

// TestBinaryDoesNotLinkTesting keeps test helpers out of the txlab binary:
// they live in test-only packages (localdbtest, connecttest, targettest).
func TestBinaryDoesNotLinkTesting(t *testing.T) {
	out, err := osexec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		// convert/mysqltest reads mysql-test files: a format, not a test helper.
		if pkg == "github.com/txlab/txlab/convert/mysqltest" {
			continue
		}
		if pkg == "testing" || strings.HasSuffix(pkg, "test") && strings.HasPrefix(pkg, "github.com/txlab/") {
			t.Errorf("the txlab binary links %s", pkg)
		}
	}
}

// TestRunWarnsAndRuns: an unknown header (a typo) and a dbms header naming
// another DBMS are warnings on stderr; the case runs and the exit is 0.
func TestRunWarnsAndRuns(t *testing.T) {
	code, out, stderr := txlab(t, "run", "--oracle", "none", "testdata/unknown-header.txn")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", code, stderr)
	}
	if !strings.Contains(out, "final state:") {
		t.Errorf("the case did not run:\n%s", out)
	}
	for _, want := range []string{
		`unknown-header.txn:4: unknown header "isolaton" ignored (did you mean "isolation"?`,
		"the case says dbms mariadb; it runs on sqlite",
	} {
		if !strings.Contains(stderr, "txlab: warning: ") || !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestOraclesDoNotImportTheLoop keeps the pipeline one-way: oracles are
// driven by the campaign loop (fuzz) and `txlab run`, never the reverse.
func TestOraclesDoNotImportTheLoop(t *testing.T) {
	out, err := osexec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "../../oracle/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "github.com/txlab/txlab/oracle") {
			continue
		}
		for _, dep := range fields[1:] {
			if dep == "github.com/txlab/txlab/fuzz" || dep == "github.com/txlab/txlab/replay" {
				t.Errorf("%s imports %s", fields[0], dep)
			}
		}
	}
}

// TestProfiles: --cpuprofile and --memprofile write pprof files (gzipped
// protobuf) for a command, an unwritable path is a clear error.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	code, _, stderr := txlab(t, "fuzz", "--oracle", "none", "--duration", "1s", "--cpuprofile", cpu, "--memprofile", mem)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: not a pprof profile (%d bytes, %v)", p, len(b), err)
		}
	}
	code, _, stderr = txlab(t, "version", "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "cpu.out"))
	if code != 2 || !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("unwritable profile: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txlab/txlab/testcase"
)

// TestImportGoesOn: a file that cannot be converted is said on its own
// line, the other files are still converted, and the exit status is 2.
func TestImportGoesOn(t *testing.T) {
	good, err := filepath.Glob("../../convert/testdata/troc/*.txt")
	if err != nil || len(good) == 0 {
		t.Fatalf("no troc test files: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("this is not a troc case\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, errOut := txlab(t, "import", "--from", "troc", "--out", out, bad, good[0])
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "bad.txt") || !strings.Contains(errOut, "1 of 2 files not converted") {
		t.Errorf("stderr %q: want the bad file named and the count", errOut)
	}
	written, _ := filepath.Glob(filepath.Join(out, "*.txn"))
	if len(written) == 0 {
		t.Errorf("the good file after the bad one was not converted; stderr %q", errOut)
	}
}

// TestImportRefusesNotUTF8: a troc file whose SQL holds a GBK lead byte
// before a backslash (the server, reading GBK, would see the string end
// there and run what follows) is refused with its line and byte offset,
// and no case file is written for it.
func TestImportRefusesNotUTF8(t *testing.T) {
	good, err := filepath.Glob("../../convert/testdata/troc/*.txt")
	if err != nil || len(good) == 0 {
		t.Fatalf("no troc test files: %v", err)
	}
	text, err := os.ReadFile(good[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	bad := filepath.Join(t.TempDir(), "gbk.txt")
	body := lines[0] + "INSERT INTO t VALUES ('\xbf\\''); DROP USER root; -- ');\n" + strings.Join(lines[1:], "")
	if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, errOut := txlab(t, "import", "--from", "troc", "--out", out, bad)
	want := "gbk.txt: line 2: byte " + fmt.Sprint(len(lines[0])+23) + " (column 24) is not valid UTF-8 (0xbf)"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if written, _ := filepath.Glob(filepath.Join(out, "*.txn")); len(written) > 0 {
		t.Errorf("wrote %v", written)
	}
}

// TestImportVendorTests: --from pg-isolation gives one case file per
// permutation of a spec, --from mysql-test one per scenario of a .test
// file, each a case txlab reads.
func TestImportVendorTests(t *testing.T) {
	for _, tc := range []struct {
		from, file string
		want       []string
	}{
		{"pg-isolation", "../../convert/pgspec/testdata/lost-update.spec", []string{"lost-update-1.txn", "lost-update-2.txn"}},
		{"mysql-test", "../../convert/mysqltest/testdata/scenarios.test", []string{"scenarios-1.txn", "scenarios-2.txn"}},
	} {
		out := t.TempDir()
		code, _, errOut := txlab(t, "import", "--from", tc.from, "--out", out, tc.file)
		if code != 0 {
			t.Fatalf("%s: exit %d; stderr %q", tc.from, code, errOut)
		}
		for _, name := range tc.want {
			if _, err := testcase.ParseFile(filepath.Join(out, name)); err != nil {
				t.Errorf("%s: %v", tc.from, err)
			}
		}
	}
}

// TestImportNamesDoNotCollide: a spec's second permutation and a spec
// named like it (nowait.spec, nowait-2.spec) both keep their case file.
func TestImportNamesDoNotCollide(t *testing.T) {
	dir := t.TempDir()
	two := "setup { CREATE TABLE t (k int); }\nsession s1\nstep a { SELECT 1; }\nstep b { SELECT 2; }\npermutation a b\npermutation b a\n"
	one := "session s1\nstep c { SELECT 3; }\n"
	for name, text := range map[string]string{"nowait.spec": two, "nowait-2.spec": one} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	code, _, errOut := txlab(t, "import", "--from", "pg-isolation", "--out", out, filepath.Join(dir, "nowait.spec"), filepath.Join(dir, "nowait-2.spec"))
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	written, _ := filepath.Glob(filepath.Join(out, "*.txn"))
	if len(written) != 3 {
		t.Errorf("wrote %v, want 3 case files; stderr %q", written, errOut)
	}
}

// ampSpec is a spec of sessions s1, s2, … of steps each (SELECT k), and
// perms listed permutations of them (none: every interleaving).
func ampSpec(sessions, steps, perms int) string {
	var b strings.Builder
	b.WriteString("setup { CREATE TABLE t (k int); }\n")
	var all []string
	for s := 1; s <= sessions; s++ {
		fmt.Fprintf(&b, "session s%d\n", s)
		for i := 1; i <= steps; i++ {
			name := fmt.Sprintf("s%d_%d", s, i)
			fmt.Fprintf(&b, "step %s { SELECT %d; }\n", name, i)
			all = append(all, name)
		}
	}
	for range perms {
		b.WriteString("permutation " + strings.Join(all, " ") + "\n")
	}
	return b.String()
}

// TestImportMaxCases: a file that would make more cases than --max-cases
// (a spec of 32,784 permutations took 30 minutes and 17 GB) is refused
// whole at once, with one line naming its count and the flag, and no case
// file is written; --max-cases raised converts it. A troc file's cases are
// bounded the same way.
func TestImportMaxCases(t *testing.T) {
	dir := t.TempDir()
	troc := strings.Repeat("CREATE TABLE t (a INT);\n\nRC\nBEGIN;\nCOMMIT;\n\n1-1\nEND\n", 30)
	for _, tc := range []struct {
		name, from, text string
		args             []string
		want             string // the refusal; "" for none
		cases            int    // the cases written
	}{
		{"listed.spec", "pg-isolation", ampSpec(2, 2, 2500), nil,
			"listed.spec: 2500 permutations, one case each: more than --max-cases 2000; none converted (--max-cases 2500 converts them all)", 0},
		{"listed.spec", "pg-isolation", ampSpec(2, 2, 2500), []string{"--max-cases", "2500"}, "", 2500},
		// Past the 200 interleavings once the bound (PostgreSQL's
		// receipt-report.spec has 210).
		{"interleaved-252.spec", "pg-isolation", ampSpec(2, 5, 0), nil, "", 252},
		{"interleaved.spec", "pg-isolation", ampSpec(3, 4, 0), nil,
			"interleaved.spec: no permutation listed, and its 12 steps interleave 34650 ways, one case each: more than --max-cases 2000; none converted (--max-cases 34650 converts them all)", 0},
		{"factorial.spec", "pg-isolation", ampSpec(30, 1, 0), []string{"--max-cases", "1000000000"},
			"factorial.spec: no permutation listed, and its 30 steps interleave more than 9.2e18 ways, one case each: more than --max-cases 1000000000; none converted", 0},
		{"cases.txt", "troc", troc, []string{"--max-cases", "20"},
			"cases.txt: 30 cases: more than --max-cases 20; none converted (--max-cases 30 converts them all)", 0},
		{"cases.txt", "troc", troc, []string{"--max-cases", "30"}, "", 30},
	} {
		t.Run(tc.name+strings.Join(tc.args, ""), func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			// Refusals into --out, to see that no case file is written;
			// conversions to stdout (thousands of synced files are slow).
			out := t.TempDir()
			args := append([]string{"import", "--from", tc.from}, tc.args...)
			if tc.want != "" {
				args = append(args, "--out", out)
			}
			began := time.Now()
			code, stdout, errOut := txlab(t, append(args, path)...)
			written, _ := filepath.Glob(filepath.Join(out, "*.txn"))
			if tc.want == "" {
				written = make([]string, strings.Count(stdout, "-- Converted by txlab import"))
			}
			if tc.want != "" {
				if want := "txlab: " + filepath.Join(dir, tc.want) + "\n"; code != 2 || errOut != want {
					t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, want)
				}
				if d := time.Since(began); d > 5*time.Second {
					t.Errorf("refused after %v, want at once", d)
				}
			} else if code != 0 {
				t.Errorf("exit %d, stderr %.300q", code, errOut)
			}
			if len(written) != tc.cases {
				t.Errorf("wrote %d cases, want %d", len(written), tc.cases)
			}
		})
	}
	if code, _, errOut := txlab(t, "import", "--from", "troc", "--max-cases", "0", filepath.Join(dir, "cases.txt")); code != 2 || !strings.Contains(errOut, "--max-cases 0: want 1 or more") {
		t.Errorf("--max-cases 0: exit %d, stderr %q", code, errOut)
	}
}

// TestImportInterrupted: a cancelled context (Ctrl-C, SIGTERM: main
// cancels it on either) stops the import between cases, with exit 2 and
// one line saying how many cases were written; every case file left is
// whole, and no temporary file is. The spec interleaves 20! ways, which
// --max-cases lets through: only a conversion that makes one case at a
// time gets to the first.
func TestImportInterrupted(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "amp.spec")
	if err := os.WriteFile(spec, []byte(ampSpec(20, 1, 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the third case file is written.
	stderr := &cancelAfter{n: 3, cancel: cancel}
	done := make(chan int, 1)
	go func() {
		var stdout bytes.Buffer
		done <- run(ctx, []string{"import", "--from", "pg-isolation", "--max-cases", "9000000000000000000", "--out", out, spec}, &stdout, stderr)
	}()
	select {
	case code := <-done:
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if last := lines[len(lines)-1]; code != 2 || last != "txlab: interrupted after 3 cases" || len(lines) != 4 {
			t.Errorf("exit %d, stderr %q; want exit 2, three wrote lines and txlab: interrupted after 3 cases", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("import did not end 20 s after it was interrupted")
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 3 {
		t.Errorf("%d files in --out, want the 3 case files: %v", len(entries), entries)
	}
	for _, e := range entries {
		if _, err := testcase.ParseFile(filepath.Join(out, e.Name())); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

// cancelAfter is a stderr that cancels once n "wrote" lines went by.
type cancelAfter struct {
	bytes.Buffer
	n      int
	cancel func()
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Count(w.String(), "wrote ") >= w.n {
		w.cancel()
	}
	return n, err
}

// TestImportRefusesNotRegular: an input that is not a regular file — a
// FIFO (whose open waited for a writer forever, deaf to SIGTERM), a
// directory, a device — is refused with one line naming it, as a case
// source and as --setup, at once; so is a file larger than import reads,
// unread.
func TestImportRefusesNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.sql")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Releases a reader blocked opening the FIFO (without the fix).
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 64<<20+1); err != nil { // sparse: nothing to read
		t.Fatal(err)
	}
	// A case without setup, which takes --setup's.
	noSetup := filepath.Join(dir, "case.txt")
	if err := os.WriteFile(noSetup, []byte("RC\nBEGIN;\nSELECT 1;\nCOMMIT;\n\n1-1-1\nEND\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{fifo}, fifo + ": not a regular file"},
		{[]string{"--setup", fifo, noSetup}, "--setup " + fifo + ": not a regular file"},
		{[]string{dir}, dir + ": not a regular file"},
		{[]string{"/dev/null"}, "/dev/null: not a regular file"},
		{[]string{"--setup", "/dev/zero", noSetup}, "--setup /dev/zero: not a regular file"},
		{[]string{big}, big + ": larger than 64 MiB, the most txlab import reads of a file"},
		{[]string{filepath.Join(dir, "missing.txt")}, filepath.Join(dir, "missing.txt") + ": no such file or directory"},
	} {
		type result struct {
			code           int
			stdout, stderr string
		}
		done := make(chan result, 1)
		go func() {
			code, stdout, stderr := txlab(t, append([]string{"import", "--from", "troc"}, tc.args...)...)
			done <- result{code, stdout, stderr}
		}()
		select {
		case r := <-done:
			if want := "txlab: " + tc.want + "\n"; r.code != 2 || r.stdout != "" || r.stderr != want {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, r.code, r.stdout, r.stderr, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: import did not end in 10 s", tc.args)
		}
	}
}

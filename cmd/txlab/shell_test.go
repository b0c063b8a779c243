package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// shellScript is the acceptance script of the shell: connection 2's UPDATE
// waits for connection 1's row lock until connection 1 commits.
const shellScript = `1> CREATE TABLE t (id INT PRIMARY KEY, v INT);
1> INSERT INTO t VALUES (1, 0);
1> BEGIN;
1> UPDATE t SET v = 1 WHERE id = 1;
2> BEGIN;
2> UPDATE t SET v = 2
   WHERE id = 1;
\conns
2> SELECT 42;
1> COMMIT;
2> SELECT * FROM t;
2> COMMIT;
\state
`

// TestShellScript pipes a script into txlab shell on each DBMS: the blocked
// UPDATE prints BLOCKED, then RESUMED after the COMMIT; \conns shows it
// waiting; \save writes a case that txlab run replays to the same schedule.
func TestShellScript(t *testing.T) {
	for _, db := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(db, func(t *testing.T) {
			if db != "sqlite" {
				localdbtest.Require(t, localdb.Kind(db))
			}
			saved := filepath.Join(t.TempDir(), "session.txn")
			var out, errb bytes.Buffer
			code := runIO(context.Background(), []string{"shell", "--db", db}, strings.NewReader(shellScript+`\save `+saved+"\n"), &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
			}
			got := out.String()
			blocked := strings.Index(got, "2> UPDATE t SET v = 2 WHERE id = 1;  BLOCKED")
			waiting := strings.Index(got, "2: default level, BLOCKED on UPDATE t SET v = 2 WHERE id = 1")
			commit := strings.Index(got, "1> COMMIT;  ok")
			resumed := strings.Index(got, "2> UPDATE t SET v = 2 WHERE id = 1;  RESUMED ok, 1 row affected")
			if blocked < 0 || waiting < blocked || commit < waiting || resumed < commit {
				t.Fatalf("want BLOCKED, \\conns, COMMIT, RESUMED in order:\n%s", got)
			}
			if queued, ran := strings.Index(got, "2> SELECT 42;  QUEUED"), strings.Index(got, "2> SELECT 42;  ok"); queued < 0 || queued > commit || ran < resumed {
				t.Errorf("a statement typed on the blocked connection should queue, then run after it resumes:\n%s", got)
			}
			if !strings.Contains(got, "2> SELECT * FROM t;  ok, 1 row: (1, 2)") || !strings.Contains(got, "t: 1 row\n  (1, 2)") {
				t.Errorf("the SELECT or \\state does not show (1, 2):\n%s", got)
			}
			// The saved session replays to the same schedule.
			data, err := os.ReadFile(saved)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 0);\n1> BEGIN;") {
				t.Errorf("the leading autocommit statements are not the setup:\n%s", data)
			}
			code, stdout, stderr := txlab(t, "run", "--db", db, "--oracle", "none", "--json", saved)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			cases := decodeCases(t, stdout)
			if len(cases) != 1 {
				t.Fatalf("%d cases", len(cases))
			}
			if s := statuses(cases[0].Events); s != "1:ok 1:ok 2:ok 2:blocked 1:ok 2:ok+resumed 2:ok 2:ok 2:ok" {
				t.Errorf("replayed schedule %s", s)
			}
		})
	}
}

// TestShellCommands: the commands answer, a bad one is named, and \quit
// ends the session.
func TestShellCommands(t *testing.T) {
	script := "\\help\n\\isolation 2 ser\n\\isolation 2 bogus\n\\frob\n1> SELECT 1;\n\\quit\n1> SELECT 2;\n"
	var out, errb bytes.Buffer
	if code := runIO(context.Background(), []string{"shell"}, strings.NewReader(script), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{`\save FILE`, "unknown command \\frob", "connection 2: serializable", "1> SELECT 1;  ok, 1 row: (1)", "error:"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SELECT 2") {
		t.Errorf("a statement after \\quit ran:\n%s", got)
	}
}

// TestShellSaveLevelChange: \isolation on a connection that has run
// statements is saved so that the case replays each transaction at the
// level it ran at: the statements after the change go to a connection of
// their own (a case gives each connection one level; an isolation.1 header
// would claim the new level for connection 1's earlier statements too). A
// change before a connection's first statement is its isolation.N header,
// and one inside a transaction is refused.
func TestShellSaveLevelChange(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "s.txn")
	script := "CREATE TABLE t (a INT);\n1> BEGIN;\n1> SELECT 1;\n\\isolation 1 ser\n1> COMMIT;\n\\isolation 1 ser\n\\isolation 2 ser\n" +
		"1> SELECT 2;\n2> SELECT 3;\n\\save " + saved + "\n"
	var out, errb bytes.Buffer
	if code := runIO(context.Background(), []string{"shell"}, strings.NewReader(script), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "error: connection 1 is in a transaction: change its level after its COMMIT or ROLLBACK") ||
		!strings.Contains(out.String(), "note: Connection 3 is the session's connection 1 after \\isolation 1 serializable") {
		t.Errorf("shell output:\n%s", out.String())
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	want := "-- isolation.2: serializable\n-- isolation.3: serializable\n"
	steps := "1> BEGIN;\n1> SELECT 1;\n1> COMMIT;\n3> SELECT 2;\n2> SELECT 3;\n"
	if !strings.HasPrefix(string(data), want) || !strings.HasSuffix(string(data), steps) || strings.Contains(string(data), "isolation.1") {
		t.Errorf("saved case:\n%s\nwant it to start with\n%sand end with\n%s", data, want, steps)
	}
	if code, stdout, stderr := txlab(t, "run", "--oracle", "none", saved); code != 0 {
		t.Errorf("run of the saved case: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestShellSaveMistyped: \save leaves out statements the DBMS rejected as
// invalid (a mistyped one, a stray "2>" on a continuation line), says so,
// and the file it writes is one txlab run accepts and replays.
func TestShellSaveMistyped(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "s.txn")
	script := "CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n1> BEGIN;\n1> SELECT * FORM\nt;\n1> UPDATE t SET a = 2\n-- a comment\nWHERE a = 1;\n2> SELECT 1\n2> ;\n1> COMMIT;\n\\save " + saved + "\n"
	var out, errb bytes.Buffer
	if code := runIO(context.Background(), []string{"shell"}, strings.NewReader(script), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"left out 1> SELECT * FORM t;", "left out 2> SELECT 1 2>;", "and 3 steps to"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	code, stdout, stderr := txlab(t, "run", "--oracle", "none", saved)
	if code != 0 {
		t.Fatalf("run of the saved case: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "(2)") || strings.Contains(stdout, "FORM") {
		t.Errorf("the saved case did not replay the UPDATE alone:\n%s", stdout)
	}
}

// TestShellTerminal drives txlab shell in a real terminal (tmux): the
// prompt, line editing's echo, BLOCKED at once and RESUMED after the
// COMMIT, as a person sees them.
func TestShellTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed")
		}
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "txlab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	session := "txlabtest" + strings.ReplaceAll(filepath.Base(dir), "-", "")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", session}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "40", "env", "HOME="+dir, bin, "shell")
	defer exec.Command("tmux", "-L", session, "kill-server").Run()
	screen := func() string { return tmux("capture-pane", "-p", "-t", session) }
	waitFor := func(want string) string {
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, want) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %q on the screen:\n%s", want, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// tmux takes an argument ending in ';' as a command separator: the
	// semicolon is sent as its key code.
	typeLine := func(line string) {
		tmux("send-keys", "-t", session, "-l", strings.TrimSuffix(line, ";"))
		tmux("send-keys", "-t", session, "-H", "3b")
		tmux("send-keys", "-t", session, "Enter")
	}
	waitFor("txlab 1>")
	for _, line := range []string{
		"1> CREATE TABLE t (id INT PRIMARY KEY, v INT);",
		"1> INSERT INTO t VALUES (1, 0);",
		"1> BEGIN;",
		"1> UPDATE t SET v = 1 WHERE id = 1;",
		"2> BEGIN;",
		"2> UPDATE t SET v = 2 WHERE id = 1;",
	} {
		typeLine(line)
	}
	waitFor("2> UPDATE t SET v = 2 WHERE id = 1;  BLOCKED")
	waitFor("txlab 2>")
	typeLine("1> COMMIT;")
	s := waitFor("RESUMED ok, 1 row affected")
	if strings.Index(s, "BLOCKED") > strings.Index(s, "RESUMED") {
		t.Errorf("RESUMED before BLOCKED:\n%s", s)
	}
	// Ctrl-C at a continuation prompt drops the unfinished statement: the
	// next line is a statement of its own, not its continuation.
	tmux("send-keys", "-t", session, "-l", "1> SELECT 'abandoned'")
	tmux("send-keys", "-t", session, "Enter")
	waitFor("...>")
	tmux("send-keys", "-t", session, "C-c")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(strings.TrimRight(screen(), "\n "), "txlab 1>") {
		if time.Now().After(deadline) {
			t.Fatalf("Ctrl-C at the continuation prompt did not give the statement prompt back:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	typeLine("SELECT 5;")
	if s := waitFor("1> SELECT 5;  ok, 1 row: (5)"); strings.Contains(s, "abandoned';") || strings.Contains(s, "SELECT 'abandoned' SELECT 5") {
		t.Errorf("the abandoned statement ran:\n%s", s)
	}
	tmux("send-keys", "-t", session, "C-d")
	deadline = time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", session, "has-session", "-t", session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("Ctrl-D did not end the shell:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestShellBoundsStatements: a statement the shell reads keeps to a case
// file's bound (testcase.MaxBytes), however it is split into lines: past
// it the session ends with exit 2 and one line, before the text is
// kept or sent. A long statement within it, over many lines, runs.
func TestShellBoundsStatements(t *testing.T) {
	deep := "1> SELECT " + strings.Repeat("(", 600_000) + "1" + strings.Repeat(")", 600_000) + ";\n"
	// A string over many lines: each line ends inside the quote.
	lines := "1> SELECT length('\n" + strings.Repeat("x;\n", 400_000) + "');\n"
	manyOK := "1> SELECT length('\n" + strings.Repeat("x;\n", 20_000) + "');\n"
	for _, c := range []struct {
		name, script string
		code         int
		want         string
	}{
		{"one deep line", deep, 2, "a line longer than 1048576 bytes"},
		{"many short lines", lines, 2, "a statement longer than 1048576 bytes"},
		{"a long statement within the bound", manyOK, 0, "ok, 1 row: (60001)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runIO(context.Background(), []string{"shell", "--db", "sqlite"}, strings.NewReader(c.script), &out, &errb)
			if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
				t.Fatalf("exit %d, want %d and %q:\nstderr: %s\nstdout: %.300s", code, c.code, c.want, errb.String(), out.String())
			}
			if c.code != 0 && strings.Count(strings.TrimSpace(errb.String()), "\n") > 0 {
				t.Errorf("more than one line on stderr: %s", errb.String())
			}
		})
	}
}

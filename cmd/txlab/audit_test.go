package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// TestCheckEmptyHistory: a history without transactions is bad input (exit
// 2, one line), not a valid history.
func TestCheckEmptyHistory(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"empty.jsonl": "", "comments.jsonl": "# nothing recorded\n\n"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := txlab(t, "check", "--model", "serializable", path)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "no transactions") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("check %s: exit %d, stdout %q, stderr %q; want exit 2 and one line saying it has no transactions", name, code, stdout, stderr)
		}
	}
}

// TestCheckFIFOInterrupted: txlab check on a FIFO nobody writes to waits in
// the kernel; Ctrl-C or SIGTERM (the context main cancels on either) must
// still end it, with exit 2 and one line.
func TestCheckFIFOInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "history.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Releases the reader still blocked opening the FIFO.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(ctx, []string{"check", "--model", "serializable", fifo}, &out, &errb)
		done <- result{code, errb.String()}
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case r := <-done:
		if r.code != 2 || !strings.Contains(r.stderr, "interrupted") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("exit %d, stderr %q; want exit 2 and one line saying it was interrupted", r.code, r.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("txlab check on a FIFO did not end 10 s after it was interrupted")
	}
}

// TestDurationFlags: a duration flag refuses what it does not document (a
// negative value; zero where zero means nothing documented) with exit 2 and
// one line, before any server starts.
func TestDurationFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"fuzz", "--reduce-budget", "-1s"}, "--reduce-budget -1s: want a positive duration"},
		{[]string{"fuzz", "--reduce-budget", "0s"}, "--reduce-budget 0s: want a positive duration"},
		{[]string{"reduce", "--budget", "-1s", "../../examples/sqlite-write-busy.txn"}, "--budget -1s: want a positive duration"},
		{[]string{"fuzz", "--duration", "-1s"}, "must not be negative"},
		{[]string{"run", "--hang-timeout", "0s", "../../examples/sqlite-write-busy.txn"}, "--hang-timeout 0s: want a positive duration"},
		{[]string{"reduce", "--connect-timeout", "-2s", "../../examples/sqlite-write-busy.txn"}, "--connect-timeout -2s: want a positive duration"},
	} {
		code, _, stderr := txlab(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("txlab %v: exit %d, stderr %q; want exit 2 and one line with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestBugsUnknownDBMS: a --dbms the corpus cannot have is a usage error
// naming the DBMSs, not an empty list; a known DBMS without bugs is fine.
func TestBugsUnknownDBMS(t *testing.T) {
	for _, args := range [][]string{{"bugs", "list", "--dbms", "bogus"}, {"bugs", "test", "--dbms", "bogus"}} {
		code, stdout, stderr := txlab(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, `"bogus"`) || !strings.Contains(stderr, "mariadb, mysql") ||
			strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("txlab %v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming the known DBMSs", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := txlab(t, "bugs", "list", "--dbms", "TiDB"); code != 0 {
		t.Errorf("bugs list --dbms TiDB: exit %d: %s", code, stderr)
	}
}

// TestTableExistsIsNotInvalid: CREATE TABLE of a table that exists is a
// state of the database (already-exists), like a missing table
// (no-such-table), not an invalid statement (syntax), which fuzz counts as
// a generator bug. MariaDB says 1050 with SQLSTATE 42S01, PostgreSQL 42P07.
func TestTableExistsIsNotInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exists.txn")
	text := "CREATE TABLE t (id INT PRIMARY KEY);\n1> CREATE TABLE t (id INT PRIMARY KEY);\n1> DROP TABLE u;\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(db, func(t *testing.T) {
			switch db {
			case "mariadb":
				localdbtest.Require(t, localdb.MariaDB)
			case "postgres":
				localdbtest.Require(t, localdb.Postgres)
			}
			code, stdout, stderr := txlab(t, "run", "--db", db, "--oracle", "none", "--json", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			cases := decodeCases(t, stdout)
			if len(cases) != 1 {
				t.Fatalf("%d results", len(cases))
			}
			if got, want := statuses(cases[0].Events), "1:error:already-exists 1:error:no-such-table"; got != want {
				t.Errorf("schedule %q, want %q", got, want)
			}
		})
	}
}

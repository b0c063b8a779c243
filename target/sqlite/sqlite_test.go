package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

func open(t *testing.T) *Target {
	t.Helper()
	tg, err := Open(targettest.Ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func TestIsolation(t *testing.T) {
	// SQLite has no isolation setting to read back; a constant query keeps
	// the shared check honest about SetIsolation and the refusals.
	targettest.Isolation(t, open(t), "SELECT 'serializable'",
		map[target.Level]string{target.Serializable: "serializable"})
}

func TestRows(t *testing.T)          { targettest.Rows(t, open(t)) }
func TestErrors(t *testing.T)        { targettest.Errors(t, open(t), "testdata/errors.txt") }
func TestResetAndDump(t *testing.T)  { targettest.ResetAndDump(t, open(t)) }
func TestForeignSchema(t *testing.T) { targettest.ForeignSchema(t, open(t)) }
func TestForeignKeys(t *testing.T)   { targettest.ForeignKeys(t, open(t)) }

func TestTempFileRemovedOnClose(t *testing.T) {
	tg, err := Open(targettest.Ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tg.Path()); err != nil {
		t.Fatalf("database file: %v", err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tg.tempDir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s still exists after Close (%v)", tg.tempDir, err)
	}
}

// TestBusy: with busy_timeout=0 a second writer fails at once with
// SQLITE_BUSY instead of waiting, and Waiting reports nobody.
func TestBusy(t *testing.T) {
	tg := open(t)
	targettest.Fresh(t, tg, "CREATE TABLE b (id INT PRIMARY KEY, v INT)", "INSERT INTO b VALUES (1, 0)")
	s1, s2 := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, s1, "BEGIN", "UPDATE b SET v = 1 WHERE id = 1")
	targettest.MustExec(t, s2, "BEGIN")
	_, err := s2.Exec(targettest.Ctx(t), "UPDATE b SET v = 2 WHERE id = 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassBusy || e.Code != "5" || e.RolledBack {
		t.Errorf("second writer: %#v, want busy 5, not rolled back", err)
	}
	w, err := tg.Waiting(targettest.Ctx(t), []string{s1.ID(), s2.ID()})
	if err != nil || len(w) != 0 {
		t.Errorf("Waiting = %v, %v; want empty", w, err)
	}
	targettest.MustExec(t, s1, "COMMIT")
	targettest.MustExec(t, s2, "ROLLBACK")
}

// TestBusySnapshot: a transaction that read before another committed a write
// can no longer write: SQLITE_BUSY_SNAPSHOT, reported as a serialization
// failure that only ROLLBACK resolves.
func TestBusySnapshot(t *testing.T) {
	tg := open(t)
	targettest.Fresh(t, tg, "CREATE TABLE b (id INT PRIMARY KEY, v INT)", "INSERT INTO b VALUES (1, 0)")
	s1, s2 := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, s1, "BEGIN", "SELECT v FROM b")
	targettest.MustExec(t, s2, "UPDATE b SET v = 2 WHERE id = 1")
	_, err := s1.Exec(targettest.Ctx(t), "UPDATE b SET v = 1 WHERE id = 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassSerialization || e.Code != "517" || !e.RolledBack {
		t.Errorf("stale writer: %#v, want serialization 517, rolled back", err)
	}
	targettest.MustExec(t, s1, "ROLLBACK")
}

// TestSweepsDeadScratchDirs: a fresh database's temporary directory left by
// a txlab that was killed is removed by the next Open; one whose owner is
// alive (this process) stays.
func TestSweepsDeadScratchDirs(t *testing.T) {
	dead, err := os.MkdirTemp("", ScratchPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dead)
	// No process has pid 2^22+1 (above Linux's pid_max).
	if err := os.WriteFile(filepath.Join(dead, "owner.pid"), []byte("4194305 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine, err := localdb.ScratchDir(ScratchPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(mine)
	tg, err := Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	tg.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead process's %s is still there (%v)", dead, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a live process's %s was removed: %v", mine, err)
	}
}

// TestSessionPragmas: every session runs in WAL mode without fsync
// (synchronous=OFF, 0), with busy_timeout 0 and foreign keys on.
func TestSessionPragmas(t *testing.T) {
	s := targettest.Session(t, open(t))
	for q, want := range map[string]string{
		"PRAGMA journal_mode": "wal", "PRAGMA synchronous": "0",
		"PRAGMA busy_timeout": "0", "PRAGMA foreign_keys": "1",
	} {
		res := targettest.MustExec(t, s, q)
		if len(res.Rows) != 1 || res.Rows[0][0].S != want {
			t.Errorf("%s = %v, want %s", q, res.Rows, want)
		}
	}
}

// TestSessionReuse: a closed session's connection serves the next session,
// which finds what a new connection would: no transaction, no lock, the
// pragmas of the DSN, and the schema as it is now (not as the connection
// last read it).
func TestSessionReuse(t *testing.T) {
	tg := open(t)
	ctx := targettest.Ctx(t)
	targettest.Fresh(t, tg, "CREATE TABLE b (id INT PRIMARY KEY, v INT)", "INSERT INTO b VALUES (1, 0)")
	first := targettest.Session(t, tg)
	targettest.MustExec(t, first, "SELECT * FROM b", "BEGIN", "UPDATE b SET v = 1 WHERE id = 1")
	c := first.(*Session).c
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	// Another connection changes the table the kept one has read.
	targettest.Fresh(t, tg, "CREATE TABLE b (id INT PRIMARY KEY, v INT, w INT)", "INSERT INTO b VALUES (1, 0, 0)")
	second := targettest.Session(t, tg)
	if second.(*Session).c != c {
		t.Fatal("the first session's connection was not kept")
	}
	// The write lock went with the transaction: this does not get SQLITE_BUSY.
	targettest.MustExec(t, second, "INSERT INTO b VALUES (2, 0, 0)", "BEGIN", "UPDATE b SET v = 2 WHERE id = 1", "COMMIT")
	for q, want := range map[string]string{
		"SELECT count(*) FROM b": "2", "SELECT v FROM b WHERE id = 1": "2",
		"PRAGMA foreign_keys": "1", "PRAGMA busy_timeout": "0", "PRAGMA journal_mode": "wal",
	} {
		if got := targettest.MustExec(t, second, q).Rows[0][0].S; got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
	_, err := second.Exec(ctx, "ATTACH ':memory:' AS x")
	if err == nil {
		t.Error("ATTACH on a kept connection succeeded")
	}
}

// TestSessionNotReused: a session that set a pragma or created a temporary
// object leaves its connection to nobody.
func TestSessionNotReused(t *testing.T) {
	tg := open(t)
	for _, q := range []string{"PRAGMA foreign_keys = OFF", "CREATE TEMP TABLE x (a INT)", "CREATE TABLE temp.y (a INT)"} {
		s := targettest.Session(t, tg)
		targettest.MustExec(t, s, q)
		c := s.(*Session).c
		s.Close()
		next := targettest.Session(t, tg)
		if next.(*Session).c == c {
			t.Errorf("%s: the connection was kept", q)
		}
		if got := targettest.MustExec(t, next, "PRAGMA foreign_keys").Rows[0][0].S; got != "1" {
			t.Errorf("%s: next session's foreign_keys = %s", q, got)
		}
		next.Close()
	}
}

// TestSessionCounters: changes(), total_changes() and last_insert_rowid()
// count a session's own statements, as on a new connection, even where the
// session's connection served another session; after that, no connection
// is kept.
func TestSessionCounters(t *testing.T) {
	tg := open(t)
	targettest.Fresh(t, tg, "CREATE TABLE b (id INTEGER PRIMARY KEY, v INT)")
	first := targettest.Session(t, tg)
	targettest.MustExec(t, first, "INSERT INTO b VALUES (7, 0), (8, 0)")
	first.Close()
	second := targettest.Session(t, tg)
	res := targettest.MustExec(t, second, "SELECT changes(), total_changes(), last_insert_rowid()")
	if r := res.Rows[0]; r[0].S != "0" || r[1].S != "0" || r[2].S != "0" {
		t.Errorf("counters of a new session: %v, want 0 0 0", r)
	}
	targettest.MustExec(t, second, "INSERT INTO b VALUES (9, 0)")
	res = targettest.MustExec(t, second, "SELECT changes(), total_changes(), last_insert_rowid()")
	if r := res.Rows[0]; r[0].S != "1" || r[1].S != "1" || r[2].S != "9" {
		t.Errorf("counters after one insert: %v, want 1 1 9", r)
	}
	c := second.(*Session).c
	second.Close()
	if third := targettest.Session(t, tg); third.(*Session).c == c {
		t.Error("a connection was kept after a session read the counters")
	}
}

// BenchmarkSessionOpen: open a session, run one statement, close it — on a
// new connection each time (as every session did before connections were
// kept), on a kept one, and on a kept one after another connection
// changed the schema (as between a case's runs: the kept connection reads
// the schema again, as a new one does).
//
//	go test -run '^$' -bench BenchmarkSessionOpen ./target/sqlite
func BenchmarkSessionOpen(b *testing.B) {
	for _, mode := range []string{"new-connection", "kept", "kept-schema-changed"} {
		b.Run(mode, func(b *testing.B) {
			tg, err := Open(context.Background(), "")
			if err != nil {
				b.Fatal(err)
			}
			defer tg.Close()
			ctx := context.Background()
			schema := []string{"CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 TEXT)", "CREATE TABLE t1 (c0 INT PRIMARY KEY, c1 REAL, c2 TEXT)", "CREATE INDEX i1 ON t1 (c1)"}
			targettest.Fresh(b, tg, schema...)
			tg.counters.Store(mode == "new-connection")
			for i := 0; b.Loop(); i++ {
				if mode == "kept-schema-changed" {
					b.StopTimer()
					q := "CREATE TABLE x (a INT)"
					if i%2 == 1 {
						q = "DROP TABLE x"
					}
					if err := tg.Cat.ExecAdmin(ctx, q); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				s, err := tg.Open(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Exec(ctx, "SELECT c1 FROM t1 WHERE c0 = 1"); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// TestEmpty: Empty leaves the tables as CREATE left them (no rows, the
// AUTOINCREMENT counter restarted) and refuses, emptying nothing, tables
// that a foreign key references or that have a trigger.
func TestEmpty(t *testing.T) {
	tg := open(t)
	ctx := targettest.Ctx(t)
	targettest.Fresh(t, tg, "CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT, v INT)", "CREATE TABLE b (k INT PRIMARY KEY)",
		"INSERT INTO a (v) VALUES (1), (2)", "INSERT INTO b VALUES (1)")
	names, err := tg.Empty(ctx)
	if err != nil || len(names) != 2 {
		t.Fatalf("Empty = %v, %v", names, err)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "INSERT INTO a (v) VALUES (3)")
	if got := targettest.MustExec(t, s, "SELECT id, (SELECT count(*) FROM b) FROM a").Rows; len(got) != 1 || got[0][0].S != "1" || got[0][1].S != "0" {
		t.Errorf("after Empty: %v, want one row with id 1 and b empty", got)
	}
	s.Close()
	for _, setup := range [][]string{
		{"CREATE TABLE p (k INT PRIMARY KEY)", "CREATE TABLE c (k INT REFERENCES p (k))", "INSERT INTO p VALUES (1)"},
		{"CREATE TABLE p (k INT PRIMARY KEY)", "CREATE TABLE c (k INT)", "CREATE TRIGGER tr AFTER DELETE ON p BEGIN INSERT INTO c VALUES (old.k); END", "INSERT INTO p VALUES (1)"},
	} {
		targettest.Fresh(t, tg, setup...)
		if _, err := tg.Empty(ctx); err == nil {
			t.Errorf("%s: Empty succeeded", setup[1:len(setup)-1])
		}
		s := targettest.Session(t, tg)
		if got := targettest.MustExec(t, s, "SELECT count(*) FROM p").Rows[0][0].S; got != "1" {
			t.Errorf("%s: p has %s rows after a refused Empty, want 1", setup[1:len(setup)-1], got)
		}
		s.Close()
	}
}

func TestBounded(t *testing.T) {
	targettest.Bounded(t, open(t), func(n int) string { return fmt.Sprintf("printf('%%.%dc', 'v')", n) })
}

// TestHeapLimit: a statement whose own values outgrow SQLite's heap limit
// (a recursive CTE doubling a string: 1 GiB after 30 rows) fails with an
// error of class other, in well under a second, instead of taking the
// process's memory; the session goes on.
func TestHeapLimit(t *testing.T) {
	if memStatus != nil {
		t.Fatal(memStatus)
	}
	tg := open(t)
	s := targettest.Session(t, tg)
	for _, q := range []string{
		"WITH RECURSIVE c(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || s FROM c WHERE n < 40) SELECT n, length(s) FROM c",
		"SELECT length(printf('%.*c', 900000000, 'x'))",
	} {
		start := time.Now()
		_, err := s.Exec(targettest.Ctx(t), q)
		te := target.AsError(err)
		if te == nil || te.Class != target.ClassOther || !strings.Contains(te.Message, "out of memory") {
			t.Errorf("%s: err %v; want class other, out of memory", q, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: failed after %v", q, d)
		}
	}
	if res := targettest.MustExec(t, s, "SELECT 1"); len(res.Rows) != 1 {
		t.Errorf("after the failure, SELECT 1 = %v", res.Rows)
	}
}

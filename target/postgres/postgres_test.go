package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// One PostgreSQL server for the whole package: starting one takes seconds.
// deadlock_timeout is short so that TestDeadlock does not wait a second.
var shared *localdbtest.Shared

func TestMain(m *testing.M) {
	shared = localdbtest.StartShared(localdb.Postgres, "deadlock_timeout=100ms")
	code := m.Run()
	shared.Stop()
	os.Exit(code)
}

// open connects to the shared server in a schema of the test's own.
func open(t *testing.T, schema string) *Target {
	t.Helper()
	tg, err := Open(targettest.Ctx(t), shared.Server(t).DSN(), "", schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func TestInfo(t *testing.T) {
	tg := open(t, "txlab_info")
	info := tg.Info()
	if info.DBMS != Postgres || info.Schema != "txlab_info" || info.Version == "" || tg.DefaultLevel() != target.ReadCommitted {
		t.Errorf("Info = %+v, default %s", info, tg.DefaultLevel())
	}
	// Sessions work in txlab's schema, not public.
	s := targettest.Session(t, tg)
	res := targettest.MustExec(t, s, "SELECT current_schema()")
	if res.Rows[0][0].S != "txlab_info" {
		t.Errorf("current_schema() = %v", res.Rows)
	}
}

func TestIsolation(t *testing.T) {
	want := map[target.Level]string{
		target.ReadUncommitted: "read uncommitted",
		target.ReadCommitted:   "read committed",
		target.RepeatableRead:  "repeatable read",
		target.Serializable:    "serializable",
	}
	targettest.Isolation(t, open(t, "txlab"), "SHOW default_transaction_isolation", want)
}

func TestRows(t *testing.T)          { targettest.Rows(t, open(t, "txlab")) }
func TestErrors(t *testing.T)        { targettest.Errors(t, open(t, "txlab"), "testdata/errors_postgres.txt") }
func TestResetAndDump(t *testing.T)  { targettest.ResetAndDump(t, open(t, "txlab")) }
func TestForeignSchema(t *testing.T) { targettest.ForeignSchema(t, open(t, "txlab_foreign")) }
func TestForeignKeys(t *testing.T)   { targettest.ForeignKeys(t, open(t, "txlab")) }
func TestWaiting(t *testing.T)       { targettest.Waiting(t, open(t, "txlab")) }
func TestDeadlock(t *testing.T)      { targettest.Deadlock(t, open(t, "txlab")) }

// TestSerializationAndAborted: under REPEATABLE READ the second of two
// concurrent updates of a row fails with 40001 once the first commits, and
// the next statement of the failed transaction with 25P02; both leave the
// transaction accepting only ROLLBACK.
func TestSerializationAndAborted(t *testing.T) {
	tg := open(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE c (id INT PRIMARY KEY, v INT)", "INSERT INTO c VALUES (1, 0)")
	a, b := targettest.Session(t, tg), targettest.Session(t, tg)
	for _, s := range []target.Session{a, b} {
		if err := s.SetIsolation(targettest.Ctx(t), target.RepeatableRead); err != nil {
			t.Fatal(err)
		}
	}
	targettest.MustExec(t, a, "BEGIN", "UPDATE c SET v = 1 WHERE id = 1")
	targettest.MustExec(t, b, "BEGIN", "SELECT v FROM c")
	done := make(chan error, 1)
	go func() { _, err := b.Exec(context.Background(), "UPDATE c SET v = 2 WHERE id = 1"); done <- err }()
	for {
		w, err := tg.Waiting(targettest.Ctx(t), []string{b.ID()})
		if err != nil {
			t.Fatal(err)
		}
		if w[b.ID()] {
			break
		}
		time.Sleep(time.Millisecond)
	}
	targettest.MustExec(t, a, "COMMIT")
	err := <-done
	if e := target.AsError(err); e == nil || e.Class != target.ClassSerialization || e.Code != "40001" || !e.RolledBack {
		t.Errorf("concurrent update: %#v, want rolled-back serialization 40001", err)
	}
	_, err = b.Exec(targettest.Ctx(t), "SELECT 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassAborted || e.Code != "25P02" || !e.RolledBack {
		t.Errorf("statement after the failure: %#v, want aborted 25P02", err)
	}
	targettest.MustExec(t, b, "ROLLBACK")
	// An error outside a transaction block rolls back nothing else.
	_, err = b.Exec(targettest.Ctx(t), "SELECT 1/0")
	if e := target.AsError(err); e == nil || e.RolledBack {
		t.Errorf("autocommit error: %#v, want RolledBack=false", err)
	}
}

// TestCancel: cancelling a statement blocked on a lock returns promptly and
// the session stays usable.
func TestCancel(t *testing.T) {
	tg := open(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE k (id INT PRIMARY KEY, v INT)", "INSERT INTO k VALUES (1, 0)")
	holder, blocked := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, holder, "BEGIN", "UPDATE k SET v = 1 WHERE id = 1")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := blocked.Exec(ctx, "UPDATE k SET v = 2 WHERE id = 1")
	if err == nil || target.AsError(err) != nil || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled Exec = %v after %v, want a context error promptly", err, time.Since(start))
	}
	targettest.MustExec(t, holder, "COMMIT")
	res := targettest.MustExec(t, blocked, "SELECT v FROM k")
	if res.Rows[0][0].S != "1" {
		t.Errorf("after cancel: v = %v, want 1", res.Rows)
	}
}

// TestSettings reads a setting the server was started with and leaves out a
// name the server does not know.
func TestSettings(t *testing.T) {
	got, err := open(t, "txlab").Settings(context.Background(), []string{"deadlock_timeout", "txlab.no_such_setting"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["deadlock_timeout"] != "100ms" {
		t.Errorf("Settings = %v, want only deadlock_timeout=100ms", got)
	}
}

// TestQuickDeadlocks: a superuser session gets a 10 ms deadlock_timeout; a
// session without the privilege keeps the server's value, without an error.
func TestQuickDeadlocks(t *testing.T) {
	ctx := context.Background()
	tg := open(t, "txlab")
	s := targettest.Session(t, tg)
	if err := s.(target.QuickDeadlocks).QuickDeadlocks(ctx); err != nil {
		t.Fatal(err)
	}
	if res := targettest.MustExec(t, s, "SHOW deadlock_timeout"); res.Rows[0][0].S != "10ms" {
		t.Errorf("case role granted SET deadlock_timeout: deadlock_timeout = %v, want 10ms", res.Rows)
	}
	root := rootConn(t)
	rootQuery(t, root, `DO $$ BEGIN
		IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'txlab_plain') THEN
			DROP SCHEMA IF EXISTS txlab_plain CASCADE; DROP OWNED BY txlab_plain; DROP ROLE txlab_plain;
		END IF; END $$`)
	rootQuery(t, root, "CREATE ROLE txlab_plain LOGIN")
	rootQuery(t, root, "GRANT CREATE ON DATABASE postgres TO txlab_plain")
	dsn := strings.Replace(shared.Server(t).DSN(), "://txlab@", "://txlab_plain@", 1)
	plain, err := Open(targettest.Ctx(t), dsn, "", "txlab_plain")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	ps := targettest.Session(t, plain)
	if err := ps.(target.QuickDeadlocks).QuickDeadlocks(ctx); err != nil {
		t.Fatalf("without the privilege: %v", err)
	}
	if res := targettest.MustExec(t, ps, "SHOW deadlock_timeout"); res.Rows[0][0].S != "100ms" {
		t.Errorf("without the privilege: deadlock_timeout = %v, want the server's 100ms", res.Rows)
	}
}

// TestSessionPool: a closed session's backend serves the next Open, and
// nothing of the first session reaches the second: its isolation level,
// deadlock_timeout, temporary table, open transaction and row lock are gone.
func TestSessionPool(t *testing.T) {
	tg := open(t, "txlab_pool")
	ctx := targettest.Ctx(t)
	exec := func(s target.Session, q string) *target.Result {
		t.Helper()
		res, err := s.Exec(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	setup, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exec(setup, "DROP TABLE IF EXISTS t")
	exec(setup, "CREATE TABLE t (k INT PRIMARY KEY, v INT)")
	exec(setup, "INSERT INTO t VALUES (1, 1)")

	first, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.SetIsolation(ctx, target.Serializable); err != nil {
		t.Fatal(err)
	}
	exec(first, "SET deadlock_timeout = '12ms'")
	exec(first, "CREATE TEMPORARY TABLE scratch (x INT)")
	exec(first, "BEGIN")
	exec(first, "UPDATE t SET v = 2 WHERE k = 1") // holds the row lock
	pid := first.ID()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if second.ID() != pid {
		t.Errorf("backend %s not reused (got %s)", pid, second.ID())
	}
	for q, want := range map[string]string{
		"SHOW transaction_isolation": "read committed",
		"SHOW deadlock_timeout":      "100ms", // the server's setting
		"SHOW search_path":           `"txlab_pool"`,
		"SELECT count(*) FROM pg_tables WHERE tablename = 'scratch'": "0",
		"SELECT v FROM t WHERE k = 1":                                "1", // rolled back
	} {
		if got := exec(second, q).Rows[0][0].S; got != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
	// The row lock went with the transaction: this does not wait.
	lockCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := setup.Exec(lockCtx, "UPDATE t SET v = 3 WHERE k = 1"); err != nil {
		t.Errorf("the first session's row lock outlived it: %v", err)
	}
	setup.Close()
}

// BenchmarkSessionOpen opens and closes one session: from the pool (a
// backend reset with DISCARD ALL) against a new connection each time.
func BenchmarkSessionOpen(b *testing.B) {
	tg, err := Open(context.Background(), shared.Server(b).DSN(), "", "txlab_bench")
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	b.Run("pooled", func(b *testing.B) {
		for range b.N {
			s, err := tg.Open(ctx)
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("new-connection", func(b *testing.B) {
		for range b.N {
			c, err := pgconn.ConnectConfig(ctx, tg.cfg)
			if err != nil {
				b.Fatal(err)
			}
			c.Close(ctx)
		}
	})
}

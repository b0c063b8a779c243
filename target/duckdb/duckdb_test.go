package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// program is txlab-duckdb, built once per test binary (a no-op once it is
// in txlab's cache: .ci/run builds it with txlab install duckdb). Off CI
// the tests skip where it cannot be built (no go command, no C compiler);
// under CI=true that is a failure.
var program = sync.OnceValues(func() (string, error) {
	if err := localdb.DuckDBBuildable(); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	return localdb.InstallDuckDB(ctx, os.Stderr)
})

func programFor(t testing.TB) string {
	t.Helper()
	bin, err := program()
	if err != nil {
		if os.Getenv("CI") == "" && localdb.DuckDBBuildable() != nil {
			t.Skipf("txlab-duckdb cannot be built here: %v", err)
		}
		t.Fatalf("txlab-duckdb: %v", err)
	}
	return bin
}

// openAt opens a target on path ("": a fresh file), closed with the test.
func openAt(t testing.TB, path string) *Target {
	t.Helper()
	tg, err := Open(targettest.Ctx(t), path, Options{Program: programFor(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tg.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return tg
}

func open(t testing.TB) *Target { return openAt(t, "") }

func TestIsolation(t *testing.T) {
	targettest.Isolation(t, open(t), "SELECT 'snapshot'", map[target.Level]string{target.Snapshot: "snapshot"})
}

func TestRows(t *testing.T)          { targettest.Rows(t, open(t)) }
func TestErrors(t *testing.T)        { targettest.Errors(t, open(t), "testdata/errors.txt") }
func TestResetAndDump(t *testing.T)  { targettest.ResetAndDump(t, open(t)) }
func TestForeignSchema(t *testing.T) { targettest.ForeignSchema(t, open(t)) }

func TestBounded(t *testing.T) {
	targettest.Bounded(t, open(t), func(n int) string { return fmt.Sprintf("repeat('v', %d)", n) })
}

// TestInfo: what the generator and the scope check read.
func TestInfo(t *testing.T) {
	tg := open(t)
	info := tg.Info()
	if info.DBMS != "duckdb" || info.Version != "v"+localdb.DuckDBVersion || info.Schema != "main" || !info.NoLockingReads || !info.Returning {
		t.Errorf("Info = %+v", info)
	}
	if tg.DefaultLevel() != target.Snapshot {
		t.Errorf("DefaultLevel = %s", tg.DefaultLevel())
	}
}

// TestValues: DuckDB's types as text.
func TestValues(t *testing.T) {
	s := targettest.Session(t, open(t))
	res := targettest.MustExec(t, s, "SELECT 1.5::DOUBLE, 2::DOUBLE, 1.5::DECIMAL(10,2), -0.05::DECIMAL(10,2), true, false, "+
		"DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05.5', 10/4, 7::BIGINT, 'x'::VARCHAR, NULL::INT, 170141183460469231731687303715884105727::HUGEINT, 'inf'::DOUBLE")
	want := "1.5|2|1.50|-0.05|1|0|2020-01-02|2020-01-02 03:04:05.5|2.5|7|x|NULL|170141183460469231731687303715884105727|inf"
	var got []string
	for _, v := range res.Rows[0] {
		got = append(got, v.String())
	}
	if strings.Join(got, "|") != want {
		t.Errorf("values\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// TestConflict: a write to a row another open transaction wrote fails at
// once, as a serialization failure that leaves only ROLLBACK; a duplicate
// key of two concurrent inserts fails the second COMMIT, which ends its
// transaction.
func TestConflict(t *testing.T) {
	tg := open(t)
	targettest.Fresh(t, tg, "CREATE TABLE c (id INT PRIMARY KEY, v INT)", "INSERT INTO c VALUES (1, 0)")
	a, b := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, a, "BEGIN", "UPDATE c SET v = 1 WHERE id = 1")
	targettest.MustExec(t, b, "BEGIN")
	_, err := b.Exec(targettest.Ctx(t), "UPDATE c SET v = 2 WHERE id = 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassSerialization || !e.RolledBack || e.Code != "TransactionContext" {
		t.Fatalf("second UPDATE: %#v, want a serialization failure that aborts the transaction", err)
	}
	_, err = b.Exec(targettest.Ctx(t), "SELECT 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassAborted || !e.RolledBack {
		t.Errorf("after the conflict: %#v, want the aborted transaction's error", err)
	}
	targettest.MustExec(t, b, "ROLLBACK")
	targettest.MustExec(t, a, "COMMIT")

	targettest.MustExec(t, a, "BEGIN", "INSERT INTO c VALUES (2, 1)")
	targettest.MustExec(t, b, "BEGIN", "INSERT INTO c VALUES (2, 2)")
	targettest.MustExec(t, a, "COMMIT")
	_, err = b.Exec(targettest.Ctx(t), "COMMIT")
	if e := target.AsError(err); e == nil || e.Class != target.ClassDuplicateKey || !e.RolledBack {
		t.Fatalf("second COMMIT: %#v, want a duplicate key that ends the transaction", err)
	}
	if _, err := b.Exec(targettest.Ctx(t), "ROLLBACK"); err == nil {
		t.Error("ROLLBACK after the failed COMMIT succeeded: the transaction was still open")
	}
	// A binder error leaves the transaction open.
	targettest.MustExec(t, b, "BEGIN")
	_, err = b.Exec(targettest.Ctx(t), "SELECT nosuch FROM c")
	if e := target.AsError(err); e == nil || e.RolledBack {
		t.Errorf("binder error: %#v, want one that leaves the transaction open", err)
	}
	targettest.MustExec(t, b, "SELECT 1", "ROLLBACK")
	w, err := tg.Waiting(targettest.Ctx(t), []string{a.ID(), b.ID()})
	if err != nil || len(w) != 0 {
		t.Errorf("Waiting = %v, %v", w, err)
	}
}

// TestSnapshot: a transaction's snapshot is taken when it first reads the
// database, not at BEGIN; the adapter's probe after an error (SELECT 1)
// does not take it.
func TestSnapshot(t *testing.T) {
	tg := open(t)
	targettest.Fresh(t, tg, "CREATE TABLE s (id INT PRIMARY KEY)")
	a, b := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, a, "BEGIN")
	if _, err := a.Exec(targettest.Ctx(t), "SELEC 1"); err == nil {
		t.Fatal("a syntax error passed")
	}
	targettest.MustExec(t, b, "INSERT INTO s VALUES (1)")
	if res := targettest.MustExec(t, a, "SELECT count(*) FROM s"); res.Rows[0][0].S != "1" {
		t.Errorf("the first read saw %v rows, want 1 (the snapshot is taken at the first read)", res.Rows)
	}
	targettest.MustExec(t, b, "INSERT INTO s VALUES (2)")
	if res := targettest.MustExec(t, a, "SELECT count(*) FROM s"); res.Rows[0][0].S != "1" {
		t.Errorf("the second read saw %v rows, want 1", res.Rows)
	}
	targettest.MustExec(t, a, "COMMIT")
}

// TestLevels: a case at a level DuckDB lacks is refused by SetIsolation,
// with nothing sent.
func TestLevels(t *testing.T) {
	s := targettest.Session(t, open(t))
	for _, l := range []target.Level{target.Serializable, target.ReadCommitted, target.RepeatableRead} {
		var ue *target.UnsupportedLevelError
		if err := s.SetIsolation(targettest.Ctx(t), l); !errors.As(err, &ue) || !strings.Contains(err.Error(), "snapshot") {
			t.Errorf("SetIsolation(%s) = %v", l, err)
		}
	}
}

// TestHostile: what reaches outside the database file fails, and no file
// appears. Every statement is one a hostile case could hold; the scope
// check refuses most of them before they run, but this is the boundary
// behind it.
func TestHostile(t *testing.T) {
	tg := open(t)
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE h (id INT)", "INSERT INTO h VALUES (1)")
	for _, q := range []string{
		"SELECT * FROM read_csv('/etc/passwd')",
		"SELECT * FROM read_csv_auto('/etc/passwd')",
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM read_blob('/etc/passwd')",
		"SELECT * FROM read_json('/etc/passwd')",
		"SELECT * FROM read_parquet('" + filepath.Join(dir, "x.parquet") + "')",
		"SELECT * FROM glob('/etc/*')",
		"SELECT * FROM '/etc/passwd'",
		"COPY h TO '" + filepath.Join(dir, "out.csv") + "'",
		"COPY h FROM '/etc/passwd'",
		"COPY (SELECT 1) TO '" + filepath.Join(dir, "q.parquet") + "' (FORMAT parquet)",
		"EXPORT DATABASE '" + filepath.Join(dir, "export") + "'",
		"IMPORT DATABASE '" + dir + "'",
		"ATTACH '" + other + "' AS o",
		"ATTACH ':memory:' AS m",
		"DETACH m",
		"INSTALL httpfs",
		"LOAD httpfs",
		"LOAD '" + filepath.Join(dir, "x.duckdb_extension") + "'",
		"SET enable_external_access = true",
		"SET GLOBAL enable_external_access = true",
		"RESET enable_external_access",
		"SET lock_configuration = false",
		"SET autoinstall_known_extensions = true",
		"SET search_path = 'temp'",
		"USE temp",
		"SET temp_directory = '" + dir + "'",
		"PRAGMA enable_profiling",
		"SET profiling_output = '" + filepath.Join(dir, "profile") + "'",
		"CREATE PERSISTENT SECRET sec (TYPE http, BEARER_TOKEN 'x')",
		"CREATE MACRO current_database() AS 'x'",
		"/* a */ CREATE OR REPLACE TEMP MACRO m(a) AS a",
		"CREATE FUNCTION f(a) AS a",
		"CALL pragma_version()",
		"PREPARE p AS SELECT 1",
		"SELECT 1; SELECT 2",
		"INSERT INTO h VALUES (2); COPY h TO '" + filepath.Join(dir, "two.csv") + "'",
	} {
		if _, err := s.Exec(targettest.Ctx(t), q); err == nil {
			t.Errorf("%s: ran", q)
		}
		// The session goes on (a refused statement in autocommit leaves
		// nothing to roll back).
		targettest.MustExec(t, s, "SELECT 1")
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 0 {
		t.Errorf("files appeared: %v, %v", ents, err)
	}
	if res := targettest.MustExec(t, s, "SELECT count(*) FROM h"); res.Rows[0][0].S != "1" {
		t.Errorf("h holds %v rows: part of a refused text ran", res.Rows)
	}
	res := targettest.MustExec(t, s, "SELECT current_setting('enable_external_access')::VARCHAR, current_setting('lock_configuration')::VARCHAR, current_schema()")
	if got := fmt.Sprint(res.Rows[0]); got != "[false true main]" {
		t.Errorf("settings after the hostile statements: %s", got)
	}
}

// TestExisting: a file holding a table txlab did not create is refused
// before anything changes it; a file of txlab's own is used.
func TestExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.db")
	tg := openAt(t, path)
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE customers (id INT)", "INSERT INTO customers VALUES (1)")
	s.Close()
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(targettest.Ctx(t), path, Options{Program: programFor(t)})
	if err == nil || !strings.Contains(err.Error(), "customers") || !strings.Contains(err.Error(), "duckdb:PATH") {
		t.Fatalf("Open on a user's file = %v, want a refusal naming customers", err)
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Errorf("the refused file changed (%d bytes, was %d): %v", len(after), len(before), err)
	}
	if _, err := os.Stat(path + ".wal"); err == nil {
		t.Errorf("the refused open left %s.wal", path)
	}

	own := filepath.Join(t.TempDir(), "own.db")
	tg2 := openAt(t, own)
	targettest.Fresh(t, tg2, "CREATE TABLE mine (id INT)", "INSERT INTO mine VALUES (1)")
	tg2.Close()
	tg3 := openAt(t, own)
	if st, err := tg3.Dump(targettest.Ctx(t)); err != nil || len(st["mine"]) != 1 {
		t.Errorf("reopened own file: Dump = %v, %v", st, err)
	}
	if err := tg3.Reset(targettest.Ctx(t)); err != nil {
		t.Errorf("Reset: %v", err)
	}
}

// TestEmpty: Empty empties txlab's tables in place, and refuses while a
// sequence exists (it would not restart) or a foreign key does.
func TestEmpty(t *testing.T) {
	tg := open(t)
	ctx := targettest.Ctx(t)
	targettest.Fresh(t, tg, "CREATE TABLE e (id INT PRIMARY KEY, v INT)", "CREATE INDEX e_v ON e (v)", "INSERT INTO e VALUES (1, 1), (2, 2)")
	names, err := tg.Empty(ctx)
	if err != nil || len(names) != 1 {
		t.Fatalf("Empty = %v, %v", names, err)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "INSERT INTO e VALUES (1, 1)")
	targettest.Fresh(t, tg, "CREATE SEQUENCE q", "CREATE TABLE e (id INT DEFAULT nextval('q'), v INT)", "INSERT INTO e (v) VALUES (1)")
	if _, err := tg.Empty(ctx); err == nil {
		t.Error("Empty with a sequence passed")
	}
	if err := tg.Reset(ctx); err != nil {
		t.Fatalf("Reset with a sequence: %v", err)
	}
	// The sequence went with the table (a fresh file is txlab's own).
	targettest.Fresh(t, tg, "CREATE SEQUENCE q", "CREATE TABLE p (id INT PRIMARY KEY)", "CREATE TABLE c (id INT, pid INT REFERENCES p (id))")
	if _, err := tg.Empty(ctx); err == nil {
		t.Error("Empty with a foreign key passed")
	}
	if err := tg.Reset(ctx); err != nil {
		t.Fatalf("Reset with a foreign key: %v", err)
	}
	if st, err := tg.Dump(ctx); err != nil || len(st) != 0 {
		t.Errorf("after Reset: %v, %v", st, err)
	}
}

// TestCutOff: a statement cut off by its context returns at once and ends
// its session; the target and its other sessions go on.
func TestCutOff(t *testing.T) {
	tg := open(t)
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "BEGIN", "CREATE TABLE k (id INT)", "INSERT INTO k VALUES (1)")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := s.Exec(ctx, "SELECT count(*) FROM range(100000000000) a")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cut-off statement: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the cut-off statement returned after %v", d)
	}
	if _, err := s.Exec(targettest.Ctx(t), "SELECT 1"); target.AsError(err) == nil || target.AsError(err).Class != target.ClassConnection {
		t.Errorf("after the cut-off: %v, want a connection error", err)
	}
	other := targettest.Session(t, tg)
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The cut-off session's transaction is rolled back: its table is
		// gone.
		_, err := other.Exec(targettest.Ctx(t), "SELECT * FROM k")
		if e := target.AsError(err); e != nil && e.Class == target.ClassNoSuchTable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cut-off session's transaction is still there: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClosedProgram: a session whose program died fails with a connection
// error naming it, not a hang.
func TestClosedProgram(t *testing.T) {
	tg, err := Open(targettest.Ctx(t), "", Options{Program: programFor(t)})
	if err != nil {
		t.Fatal(err)
	}
	s := targettest.Session(t, tg)
	tg.p.cmd.Process.Kill()
	<-tg.p.done
	_, err = s.Exec(targettest.Ctx(t), "SELECT 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassConnection || !strings.Contains(e.Message, "txlab-duckdb") {
		t.Errorf("Exec on a dead program: %#v", err)
	}
	tg.Close()
	if _, err := os.Stat(tg.dir); err == nil {
		t.Errorf("Close left %s", tg.dir)
	}
}

// TestWireCopy: the adapter's wire.go is the program's (go generate
// ./target/duckdb copies it).
func TestWireCopy(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "duckdb", "cmd", "txlab-duckdb", "wire.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("wire.go")
	if err != nil {
		t.Fatal(err)
	}
	want := "// Code generated from duckdb/cmd/txlab-duckdb/wire.go by go generate; DO NOT EDIT.\n\n" +
		strings.Replace(string(src), "package main\n", "package duckdb\n", 1)
	if string(got) != want {
		t.Error("target/duckdb/wire.go differs from duckdb/cmd/txlab-duckdb/wire.go: run go generate ./target/duckdb")
	}
}

// TestGenerated: the generator's cases for DuckDB (PostgreSQL's dialect,
// the target's features, no locking reads) are DuckDB's SQL: their setup
// runs, and no statement fails as one DuckDB cannot read or bind.
func TestGenerated(t *testing.T) {
	tg := open(t)
	info := tg.Info()
	cases := 150
	if testing.Short() {
		cases = 30
	}
	stmts, bad := 0, 0
	feats := info.Features
	if f := os.Getenv("TXLAB_DUCKDB_FEATURES"); f != "" {
		feats = strings.Split(f, ",") // trying more: TXLAB_DUCKDB_FEATURES=a,b go test -run TestGenerated
	}
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		c := gen.Case(seed, gen.Config{Dialect: info.Dialect, Features: feats, NoLockingReads: info.NoLockingReads, NoSharedLocks: info.NoSharedLocks})
		targettest.Fresh(t, tg, c.Setup...)
		sessions := map[int]target.Session{}
		for _, st := range c.Steps {
			s := sessions[st.Conn]
			if s == nil {
				s = targettest.Session(t, tg)
				sessions[st.Conn] = s
			}
			stmts++
			_, err := s.Exec(targettest.Ctx(t), st.SQL)
			if e := target.AsError(err); e != nil && e.Class == target.ClassSyntax {
				bad++
				t.Errorf("seed %d: %s: %s", seed, st.SQL, e.Message)
			} else if err != nil && e == nil {
				t.Fatalf("seed %d: %s: %v", seed, st.SQL, err)
			}
		}
		for _, s := range sessions {
			s.Close()
		}
	}
	t.Logf("%d cases, %d statements, %d DuckDB could not read", cases, stmts, bad)
}

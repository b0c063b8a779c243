package postgres

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// rootConn is a connection to the shared server as the role its tests give
// txlab (a superuser): the user's side, to set up and to look.
func rootConn(t *testing.T) *pgconn.PgConn {
	t.Helper()
	c, err := pgconn.Connect(targettest.Ctx(t), shared.Server(t).DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func rootQuery(t *testing.T, c *pgconn.PgConn, q string) []target.Row {
	t.Helper()
	res, err := run(targettest.Ctx(t), c, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Rows
}

// TestCaseRoleReachesNothingElse: a case session, whatever it runs, can
// change nothing outside txlab's schema — the server refuses, not a check
// of txlab's — while the case's own work there succeeds.
func TestCaseRoleReachesNothingElse(t *testing.T) {
	root := rootConn(t)
	marker := filepath.Join(t.TempDir(), "program-ran")
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS shop", "CREATE TABLE IF NOT EXISTS shop.orders (id INT PRIMARY KEY)",
		"CREATE SEQUENCE IF NOT EXISTS shop.seq", "DELETE FROM shop.orders", "INSERT INTO shop.orders VALUES (1), (2)",
		"CREATE TABLE IF NOT EXISTS public.accounts (id INT)", "DELETE FROM public.accounts", "INSERT INTO public.accounts VALUES (1)",
		"DROP ROLE IF EXISTS bob", "CREATE ROLE bob", "CREATE SCHEMA IF NOT EXISTS bobs AUTHORIZATION bob",
	} {
		rootQuery(t, root, q)
	}
	tg := open(t, "txlab_priv")
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE mine (id INT PRIMARY KEY, v INT)", "INSERT INTO mine VALUES (1, 1)",
		"CREATE TEMPORARY TABLE scratch (id INT)", "CREATE VIEW mine_v AS SELECT * FROM mine",
		"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE", "BEGIN", "UPDATE mine SET v = 2", "COMMIT",
		"SET deadlock_timeout = '10ms'")
	rootPID := rootQuery(t, root, "SELECT pg_backend_pid()")[0][0].S
	superuser := rootQuery(t, root, "SELECT current_user")[0][0].S
	hostile := []string{
		"UPDATE ONLY shop.orders SET id = id + 10",
		"WITH d AS (DELETE FROM ONLY shop.orders RETURNING *) SELECT count(*) FROM d",
		"TRUNCATE shop.orders",
		"DELETE FROM public.accounts",
		"COPY mine FROM '/etc/passwd'",
		"COPY mine TO PROGRAM 'touch " + marker + "'",
		"SET search_path = shop",
		"DELETE FROM orders",
		"DO $$BEGIN DELETE FROM shop.orders; END$$",
		"DROP OWNED BY bob",
		"ALTER SYSTEM SET fsync = off",
		"ALTER ROLE CURRENT_USER SUPERUSER",
		"CREATE ROLE evil LOGIN",
		"SELECT pg_terminate_backend(" + rootPID + ")",
		"SELECT setval('shop.seq', 100)",
		"CREATE INDEX ON shop.orders (id)",
		"LOCK shop.orders",
		"SET ROLE bob",
		"SET SESSION AUTHORIZATION " + superuser,
		"SELECT pg_read_file('/etc/passwd')",
		"DROP SCHEMA shop CASCADE",
		"DROP DATABASE postgres",
		"CREATE DATABASE other",
	}
	for _, q := range hostile {
		if _, err := s.Exec(targettest.Ctx(t), q); err == nil && q != "SET search_path = shop" {
			t.Errorf("%s: ran as the case role", q)
		}
		s.Exec(targettest.Ctx(t), "ROLLBACK")
	}
	if n := rootQuery(t, root, "SELECT count(*) FROM shop.orders")[0][0].S; n != "2" {
		t.Errorf("shop.orders after the hostile statements: %s rows, want 2", n)
	}
	if n := rootQuery(t, root, "SELECT count(*) FROM public.accounts")[0][0].S; n != "1" {
		t.Errorf("public.accounts after the hostile statements: %s rows, want 1", n)
	}
	if n := rootQuery(t, root, "SELECT count(*) FROM pg_namespace WHERE nspname = 'bobs'")[0][0].S; n != "1" {
		t.Errorf("bob's schema after DROP OWNED BY bob: %s, want it kept", n)
	}
	if v := rootQuery(t, root, "SELECT last_value FROM shop.seq")[0][0].S; v != "1" {
		t.Errorf("shop.seq after setval: %s, want 1", v)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("COPY … TO PROGRAM ran a command")
	}
}

// TestCaseRoleLifetime: the role exists while the target is open, owns
// nothing and reaches nothing beyond txlab's schema, and is gone after
// Close with everything it made (tables, a free-standing sequence, a
// SECURITY DEFINER function: nothing passes to the --db role, and only
// the registry is left in the schema); a second target on the same schema
// is refused while the first is open.
func TestCaseRoleLifetime(t *testing.T) {
	root := rootConn(t)
	tg, err := Open(targettest.Ctx(t), shared.Server(t).DSN(), "", "txlab_life")
	if err != nil {
		t.Fatal(err)
	}
	if !tg.role.created || !strings.HasPrefix(tg.role.name, "txlab_case_txlab_life_") {
		t.Fatalf("case role = %+v", tg.role)
	}
	if wider, err := tg.reachBeyond(targettest.Ctx(t), tg.role.name); err != nil || len(wider) > 0 {
		t.Errorf("the case role reaches beyond its schema: %q (%v)", wider, err)
	}
	targettest.Fresh(t, tg, "CREATE TABLE kept (id INT)", "CREATE SEQUENCE loose",
		"CREATE FUNCTION definer() RETURNS int LANGUAGE sql SECURITY DEFINER AS 'SELECT 1'")
	if _, err := Open(targettest.Ctx(t), shared.Server(t).DSN(), "", "txlab_life"); err == nil || !strings.Contains(err.Error(), "in use by another txlab run") {
		t.Errorf("a second target on the same schema: %v, want refused as in use", err)
	}
	name := tg.role.name
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if n := rootQuery(t, root, "SELECT count(*) FROM pg_roles WHERE rolname = "+quoteString(name))[0][0].S; n != "0" {
		t.Errorf("after Close: %s case roles, want none", n)
	}
	left := rootQuery(t, root, `SELECT relname FROM pg_class WHERE relnamespace = 'txlab_life'::regnamespace AND relname NOT LIKE 'txlab_owned_tables%'
UNION ALL SELECT proname FROM pg_proc WHERE pronamespace = 'txlab_life'::regnamespace`)
	if len(left) != 0 {
		t.Errorf("in the schema after Close: %v, want only the registry", left)
	}
	again, err := Open(targettest.Ctx(t), shared.Server(t).DSN(), "", "txlab_life")
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	if err := again.Reset(targettest.Ctx(t)); err != nil {
		t.Errorf("reset after reopen: %v", err)
	}
	again.Close()
}

// TestLeastPrivilegedRole: a role of the user's that reaches only txlab's
// schemas runs the cases itself; one that may write elsewhere, and cannot
// create roles, is refused with the statements to run.
func TestLeastPrivilegedRole(t *testing.T) {
	root := rootConn(t)
	for _, q := range []string{
		"DROP SCHEMA IF EXISTS txlab_lp CASCADE", "DROP ROLE IF EXISTS tl", "DROP ROLE IF EXISTS wide",
		"CREATE ROLE tl LOGIN PASSWORD 'pw'", "GRANT CREATE ON DATABASE postgres TO tl",
		"CREATE ROLE wide LOGIN PASSWORD 'pw'", "GRANT CREATE ON DATABASE postgres TO wide",
		"CREATE SCHEMA IF NOT EXISTS shop", "CREATE TABLE IF NOT EXISTS shop.orders (id INT PRIMARY KEY)",
		"GRANT USAGE ON SCHEMA shop TO wide", "GRANT DELETE ON shop.orders TO wide",
	} {
		rootQuery(t, root, q)
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP SCHEMA IF EXISTS txlab_lp CASCADE", "DROP OWNED BY tl", "DROP ROLE IF EXISTS tl", "DROP OWNED BY wide", "DROP ROLE IF EXISTS wide"} {
			run(context.Background(), root, q)
		}
	})
	dsn := func(user string) string {
		u, err := url.Parse(shared.Server(t).DSN())
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(user, "pw")
		return u.String()
	}
	tg, err := Open(targettest.Ctx(t), dsn("tl"), "", "txlab_lp")
	if err != nil {
		t.Fatal(err)
	}
	if tg.role.created || tg.role.name != "tl" {
		t.Errorf("case role for a least-privileged --db = %+v, want tl itself", tg.role)
	}
	targettest.MustExec(t, targettest.Session(t, tg), "CREATE TABLE IF NOT EXISTS x (id INT)")
	tg.Close()

	_, err = Open(targettest.Ctx(t), dsn("wide"), "", "txlab_lp")
	if err == nil || !strings.Contains(err.Error(), "may write shop.orders") || !strings.Contains(err.Error(), "CREATE ROLE txlab LOGIN") {
		t.Errorf("a --db role that may write shop.orders: %v, want refused with the statements to run", err)
	}
}

// TestResetSweepsWhatCasesCreated: a case's routines, sequences and types
// in txlab's schema go with the next Reset — found by their owner, the
// case role — while an object the user put there stays.
func TestResetSweepsWhatCasesCreated(t *testing.T) {
	root := rootConn(t)
	tg := open(t, "txlab_sweep")
	rootQuery(t, root, "CREATE OR REPLACE FUNCTION txlab_sweep.users_fn() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	t.Cleanup(func() { run(context.Background(), root, "DROP FUNCTION IF EXISTS txlab_sweep.users_fn()") })
	targettest.Fresh(t, tg,
		"CREATE TABLE t (id SERIAL PRIMARY KEY, v INT)",
		"CREATE SEQUENCE s",
		"CREATE TYPE mood AS ENUM ('sad', 'ok')",
		"CREATE TYPE pair AS (a INT, b INT)",
		"CREATE DOMAIN posint AS INT CHECK (VALUE > 0)",
		"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 2'",
		"CREATE PROCEDURE p() LANGUAGE sql AS 'SELECT 3'")
	if err := tg.Reset(targettest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	left := rootQuery(t, root, `SELECT p.proname FROM pg_proc p WHERE p.pronamespace = 'txlab_sweep'::regnamespace
UNION ALL SELECT relname FROM pg_class WHERE relnamespace = 'txlab_sweep'::regnamespace AND relname <> 'txlab_owned_tables' AND relname NOT LIKE 'txlab_owned_tables%'
UNION ALL SELECT typname FROM pg_type WHERE typnamespace = 'txlab_sweep'::regnamespace AND typname NOT LIKE '%txlab_owned_tables' ORDER BY 1`)
	if len(left) != 1 || left[0][0].S != "users_fn" {
		t.Errorf("in the schema after Reset: %v, want only the user's users_fn", left)
	}
	targettest.Fresh(t, tg, "CREATE SEQUENCE s", "CREATE TYPE mood AS ENUM ('x')")
}

// TestDatabaseACLUntouched: a database with its default privileges (PUBLIC
// may connect and make temporary tables) keeps them as they were, NULL in
// pg_database: txlab grants its case role nothing it already has there
// (an explicit ACL written by a GRANT stays after DROP OWNED).
func TestDatabaseACLUntouched(t *testing.T) {
	root := rootConn(t)
	rootQuery(t, root, "DROP DATABASE IF EXISTS acl_default")
	rootQuery(t, root, "CREATE DATABASE acl_default")
	t.Cleanup(func() { run(context.Background(), root, "DROP DATABASE IF EXISTS acl_default") })
	u, err := url.Parse(shared.Server(t).DSN())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/acl_default"
	tg, err := Open(targettest.Ctx(t), u.String(), "", "txlab_acl")
	if err != nil {
		t.Fatal(err)
	}
	targettest.Fresh(t, tg, "CREATE TABLE t (id INT)")
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if acl := rootQuery(t, root, "SELECT datacl IS NULL, coalesce(datacl::text, '') FROM pg_database WHERE datname = 'acl_default'"); acl[0][0].S != "t" {
		t.Errorf("the database's ACL after a run: %s, want NULL (the defaults)", acl[0][1].S)
	}
}

// TestOrphanedSessionsEnd: a run killed while a case session held a lock
// and slept leaves that session running (the server notices the client is
// gone only when the statement ends); the next run on the schema ends it
// instead of waiting on its lock until the hang bound.
func TestOrphanedSessionsEnd(t *testing.T) {
	ctx := targettest.Ctx(t)
	dead, err := Open(ctx, shared.Server(t).DSN(), "", "txlab_orphan")
	if err != nil {
		t.Fatal(err)
	}
	targettest.Fresh(t, dead, "CREATE TABLE t (id INT)")
	s, err := dead.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	targettest.MustExec(t, s, "BEGIN", "LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
	go s.Exec(context.Background(), "SELECT pg_sleep(120)")
	time.Sleep(200 * time.Millisecond)
	// The run dies: its administrative connection goes (and with it the
	// schema's lock), its case session stays.
	dead.admin.Close(ctx)
	start := time.Now()
	next, err := Open(ctx, shared.Server(t).DSN(), "", "txlab_orphan")
	if err != nil {
		t.Fatalf("the next run: %v", err)
	}
	defer next.Close()
	targettest.Fresh(t, next, "CREATE TABLE t (id INT)")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the next run's setup took %v: it waited on the orphan's lock", d)
	}
}

// TestSweepLeftovers: the worker and oracle schemas a killed run left
// (SCHEMA_w2, SCHEMA_isorel), with their case roles, the tables those own
// and a session still holding a lock, are cleaned when the next run opens
// SCHEMA; a sibling a live run holds keeps its role, and a role of
// txlab's name that reaches further is not touched.
func TestSweepLeftovers(t *testing.T) {
	ctx := targettest.Ctx(t)
	root := rootConn(t)
	var db string
	for _, sib := range []string{"txlab_sw_w2", "txlab_sw_isorel"} {
		dead, err := Open(ctx, shared.Server(t).DSN(), "", sib)
		if err != nil {
			t.Fatal(err)
		}
		db = dead.cfg.Database
		targettest.Fresh(t, dead, "CREATE TABLE t (id INT)")
		s, err := dead.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		targettest.MustExec(t, s, "BEGIN", "LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
		dead.admin.Close(ctx) // the run dies; its case session stays
	}
	live := open(t, "txlab_sw_w3")
	foreign := caseRoleName(db, "txlab_sw_x")
	rootQuery(t, root, "CREATE SCHEMA IF NOT EXISTS txlab_sw_x")
	rootQuery(t, root, "CREATE ROLE "+quoteIdent(foreign)+" CREATEROLE")
	t.Cleanup(func() { run(context.Background(), root, "DROP ROLE IF EXISTS "+quoteIdent(foreign)) })

	swept, err := open(t, "txlab_sw").SweepLeftovers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(swept, ","); got != "txlab_sw_isorel,txlab_sw_w2" {
		t.Errorf("swept %q", got)
	}
	roles := func(name string) int {
		return len(rootQuery(t, root, "SELECT 1 FROM pg_roles WHERE rolname = "+quoteString(name)))
	}
	for _, sib := range []string{"txlab_sw_w2", "txlab_sw_isorel"} {
		if roles(caseRoleName(db, sib)) != 0 {
			t.Errorf("%s: role left", sib)
		}
		if n := rootQuery(t, root, "SELECT count(*) FROM pg_class WHERE relname = 't' AND relnamespace = "+quoteString(sib)+"::regnamespace")[0][0].S; n != "0" {
			t.Errorf("%s: the case's table is left", sib)
		}
	}
	if roles(live.role.name) != 1 {
		t.Error("the live run's role was dropped")
	}
	if roles(foreign) != 1 {
		t.Error("a role that is not txlab's was dropped")
	}
}

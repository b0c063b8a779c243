package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// evilBody is a PL/pgSQL body that does, with its caller's rights, what
// only an administrator may: make a user's role a superuser, write a
// user's table, read the password hashes into a txlab table. Each attempt
// swallows its own failure, so that run as the case role the function
// quietly does nothing, and run as the --db role it does everything.
const evilBody = `BEGIN
  BEGIN EXECUTE 'ALTER ROLE carol SUPERUSER'; EXCEPTION WHEN OTHERS THEN NULL; END;
  BEGIN INSERT INTO shop.orders VALUES (666); EXCEPTION WHEN OTHERS THEN NULL; END;
  BEGIN INSERT INTO shop.loot SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolpassword IS NOT NULL; EXCEPTION WHEN OTHERS THEN NULL; END;
  RETURN 1;
END`

// TestAdminRunsNothingACaseMade: what a case made — a view over its own
// SECURITY INVOKER function, a function that shadows pg_catalog's
// cardinality(anyarray) for txlab's lock-wait query, a TRUNCATE trigger,
// a SECURITY DEFINER function left for the next run — never runs with the
// --db role's rights through txlab's own statements: the final-state dump,
// Waiting, emptying, Reset and Close. A user's role stays a plain one,
// the user's table keeps its rows and no password hash is read.
func TestAdminRunsNothingACaseMade(t *testing.T) {
	root := rootConn(t)
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS shop", "CREATE TABLE IF NOT EXISTS shop.orders (id INT PRIMARY KEY)",
		"DELETE FROM shop.orders", "INSERT INTO shop.orders VALUES (1), (2)",
		"CREATE TABLE IF NOT EXISTS shop.loot (hash TEXT)", "DELETE FROM shop.loot",
		"DROP ROLE IF EXISTS carol", "CREATE ROLE carol LOGIN PASSWORD 'carols-secret'",
	} {
		rootQuery(t, root, q)
	}
	// The user's table loot is writable by anyone: only the rights of
	// the role that runs evil decide whether it fills up.
	rootQuery(t, root, "GRANT USAGE ON SCHEMA shop TO PUBLIC")
	rootQuery(t, root, "GRANT INSERT ON shop.loot TO PUBLIC")
	t.Cleanup(func() {
		run(context.Background(), root, "REVOKE ALL ON shop.loot FROM PUBLIC")
		run(context.Background(), root, "REVOKE USAGE ON SCHEMA shop FROM PUBLIC")
	})
	check := func(when string) {
		t.Helper()
		if s := rootQuery(t, root, "SELECT rolsuper FROM pg_roles WHERE rolname = 'carol'")[0][0].S; s != "f" {
			t.Fatalf("%s: carol became a superuser", when)
		}
		if n := rootQuery(t, root, "SELECT count(*) FROM shop.orders")[0][0].S; n != "2" {
			t.Fatalf("%s: shop.orders has %s rows, want its 2", when, n)
		}
		if n := rootQuery(t, root, "SELECT count(*) FROM shop.loot")[0][0].S; n != "0" {
			t.Fatalf("%s: %s password hashes were read", when, n)
		}
	}

	ctx := targettest.Ctx(t)
	tg, err := Open(ctx, shared.Server(t).DSN(), "", "txlab_esc")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	s := targettest.Session(t, tg)
	setup := []string{
		"CREATE FUNCTION evil() RETURNS int LANGUAGE plpgsql AS $$" + evilBody + "$$",
		"CREATE VIEW v AS SELECT txlab_esc.evil() AS x",
		"CREATE FUNCTION cardinality(integer[]) RETURNS int LANGUAGE plpgsql AS $$" + evilBody + "$$",
		"CREATE FUNCTION evil_trigger() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN PERFORM txlab_esc.evil(); RETURN NULL; END$$",
		"CREATE TABLE t (id INT)",
		"CREATE TRIGGER on_truncate AFTER TRUNCATE ON t FOR EACH STATEMENT EXECUTE PROCEDURE evil_trigger()",
		"CREATE FUNCTION definer() RETURNS int LANGUAGE plpgsql SECURITY DEFINER AS $$" + evilBody + "$$",
	}
	targettest.MustExec(t, s, setup...)
	if err := tg.Adopt(ctx, []string{"v", "t"}); err != nil {
		t.Fatal(err)
	}
	// The case's own session runs evil with the case role's rights: nothing.
	targettest.MustExec(t, s, "SELECT evil()")
	check("the case's own call")
	// Run by the administrator, evil does what it says (rolled back here):
	// the checks below can fail.
	rootQuery(t, root, "BEGIN")
	rootQuery(t, root, "SELECT txlab_esc.evil()")
	potent := rootQuery(t, root, "SELECT rolsuper FROM pg_roles WHERE rolname = 'carol'")[0][0].S
	rootQuery(t, root, "ROLLBACK")
	if potent != "t" {
		t.Fatal("evil() run by the administrator did not make carol a superuser: the test proves nothing")
	}

	st, err := tg.Dump(ctx)
	if err != nil {
		t.Fatalf("Dump: %v", err)
	}
	if rows := st["v"]; len(rows) != 1 || rows[0][0].S != "1" {
		t.Errorf("the view's rows: %v", rows)
	}
	check("Dump")
	// A waiting-for query that names the case's session: the shadowing
	// cardinality would run at every poll.
	if _, err := tg.Waiting(ctx, []string{s.ID()}); err != nil {
		t.Fatalf("Waiting: %v", err)
	}
	check("Waiting")
	if err := (catalog{tg}).TruncateTables(ctx, []string{"t"}); err != nil {
		t.Fatalf("TruncateTables: %v", err)
	}
	check("Empty (TRUNCATE fires the trigger)")
	if err := tg.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	check("Reset")
	s.Close()
	if err := tg.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Nothing of the case's is left for the next run to call, least of all
	// a SECURITY DEFINER function now the administrator's.
	if left := rootQuery(t, root, "SELECT proname FROM pg_proc WHERE pronamespace = 'txlab_esc'::regnamespace"); len(left) > 0 {
		t.Errorf("functions left in the schema after Close: %v", left)
	}
	check("Close")
}

// TestRegistryOfAnotherRole: a registry table that is not the --db role's
// own (a case that made one first, where CREATE TABLE IF NOT EXISTS then
// does nothing and the administrator's INSERT would fire its triggers) is
// refused with one line naming the statement that removes it.
func TestRegistryOfAnotherRole(t *testing.T) {
	root := rootConn(t)
	for _, q := range []string{
		"DROP SCHEMA IF EXISTS txlab_reg CASCADE", "CREATE SCHEMA txlab_reg",
		"DROP ROLE IF EXISTS mallory", "CREATE ROLE mallory",
		"CREATE TABLE txlab_reg." + target.RegistryTable + " (name VARCHAR(255) PRIMARY KEY)",
		"ALTER TABLE txlab_reg." + target.RegistryTable + " OWNER TO mallory",
	} {
		rootQuery(t, root, q)
	}
	t.Cleanup(func() {
		run(context.Background(), root, "DROP SCHEMA IF EXISTS txlab_reg CASCADE")
		run(context.Background(), root, "DROP ROLE IF EXISTS mallory")
	})
	tg := open(t, "txlab_reg")
	err := tg.Reset(targettest.Ctx(t))
	if err == nil || !strings.Contains(err.Error(), "is not a table of the --db role") || !strings.Contains(err.Error(), "DROP TABLE") {
		t.Errorf("Reset with another role's registry: %v, want refused", err)
	}
}

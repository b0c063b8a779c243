package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// TestHostileCasesRefused runs `txlab run` on hostile case files against
// embedded SQLite: each must exit 2 with one line on stderr naming the
// refused statement, run nothing (not even its setup), and leave a second
// database file it tries to reach byte for byte as it was; VACUUM INTO must
// not create its file. With --trust-case a statement kind the check does not
// know runs, and the hostile ones are still refused.
func TestHostileCasesRefused(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.db")
	db, err := sql.Open("sqlite", victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE data (id INT PRIMARY KEY, v TEXT)", "INSERT INTO data VALUES (1, 'keep'), (2, 'keep')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")

	for _, tc := range []struct {
		name, body, want string
		trusted          bool // refused even with --trust-case
	}{
		{"attach", "1> /**/ATTACH '" + victim + "' AS v;\n1> DELETE FROM/**/v.data;\n", "step 1 refused: ATTACH", true},
		{"attached-table", "1> DELETE FROM/**/v.data;\n", "step 1 refused: names v.data outside", true},
		{"vacuum-into", "1> VACUUM INTO '" + copyPath + "';\n", "step 1 refused: VACUUM", true},
		{"pragma", "1> PRAGMA writable_schema = ON;\n", "step 1 refused: PRAGMA writable_schema", true},
		{"load-extension", "1> SELECT load_extension('/tmp/evil.so');\n", "step 1 refused: calls load_extension", true},
		{"registry", "1> DELETE FROM txlab_owned_tables;\n", "step 1 refused: names txlab_owned_tables", true},
		{"two-statements", "1> SELECT 1; DROP TABLE t;\n", "a step holds exactly one statement", true},
		{"in-setup", "ATTACH '" + victim + "' AS v;\n1> SELECT 1;\n", "setup statement 2 refused: ATTACH", true},
		{"unknown-kind", "1> REINDEX t;\n", "step 1 refused: REINDEX is not a statement kind", false},
		{"typo", "1> SELEC 1;\n", "step 1 refused: SELEC starts no SQL statement: a syntax error (did you mean SELECT?)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".txn")
			body := "CREATE TABLE t (a INT);\n" + tc.body
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			own := filepath.Join(dir, tc.name+".db")
			code, out, stderr := txlab(t, "run", "--db", "sqlite:"+own, "--oracle", "none", path)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q (stdout %q)", code, stderr, tc.want, out)
			}
			// Nothing ran, not even the setup's CREATE TABLE t.
			if tables := sqliteTables(t, own); tables != "" {
				t.Errorf("the refused case created %s", tables)
			}
			code, _, stderr = txlab(t, "run", "--db", "sqlite:"+own, "--oracle", "none", "--trust-case", path)
			if tc.trusted && (code != 2 || !strings.Contains(stderr, tc.want)) {
				t.Errorf("--trust-case: exit %d, stderr %q; want it refused all the same", code, stderr)
			}
			if !tc.trusted && code != 0 {
				t.Errorf("--trust-case: exit %d, stderr %q; want the case to run", code, stderr)
			}
			after, err := os.ReadFile(victim)
			if err != nil || !bytes.Equal(before, after) {
				t.Errorf("the other database file changed (%v)", err)
			}
			if _, err := os.Stat(copyPath); !os.IsNotExist(err) {
				t.Errorf("VACUUM INTO's file exists: %v", err)
			}
		})
	}
}

// sqliteTables lists the tables of txlab's own file other than its
// registry ("" when there are none or no file).
func sqliteTables(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return ""
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names sql.NullString
	if err := db.QueryRow("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'txlab%'").Scan(&names); err != nil {
		t.Fatal(err)
	}
	return names.String
}

// TestHostileCasesOnServers runs hostile case files, of the kinds that
// got past the old check, against a throwaway MariaDB and PostgreSQL that
// hold another application's table shop.orders: each is refused (exit 2,
// one line) and the table keeps its rows.
func TestHostileCasesOnServers(t *testing.T) {
	for _, tt := range []struct {
		kind   localdb.Kind
		driver string
		setup  []string
		cases  []string
	}{
		{localdb.MariaDB, "mysql", []string{"CREATE DATABASE shop", "CREATE TABLE shop.orders (id INT)", "INSERT INTO shop.orders VALUES (1), (2)"}, []string{
			"1> DELETE b FROM t a, shop.orders b;",
			"1> UPDATE/**/shop.orders SET id = 0;",
			"1> UPDATE -- \nshop.orders SET id = 0;",
			"1> DROP TABLE t, shop.orders;",
			"1> INSERT shop.orders VALUES (9);",
			"1> PREPARE s FROM 'DELETE FROM shop.orders';\n1> EXECUTE s;",
			"1> RENAME TABLE shop.orders TO txlab.stolen;",
			"1> DELETE shop FROM t AS view JOIN shop.orders AS shop;",
			// Made, then never recorded: every later run refused the schema.
			"1> CREATE TABLE `b\\` (id INT);",
			// A name after the dot may start with digits: read as the
			// number .2024, it hid the database (the red team's probe
			// wrote and dropped test.2024_orders, which PUBLIC may reach).
			"1> UPDATE shop.2024_orders SET id = 0;",
			"1> CREATE TABLE shop.1e5 (id INT);",
		}},
		{localdb.Postgres, "pgx", []string{"CREATE SCHEMA shop", "CREATE TABLE shop.orders (id INT)", "INSERT INTO shop.orders VALUES (1), (2)",
			// A user's function anyone may call (EXECUTE and the schema's
			// USAGE go to PUBLIC, as many databases grant them), which
			// writes as its owner: a case role reaches it like any other.
			"GRANT USAGE ON SCHEMA shop TO PUBLIC",
			"CREATE FUNCTION shop.wipe() RETURNS int SECURITY DEFINER LANGUAGE sql AS 'DELETE FROM shop.orders; SELECT 1'"}, []string{
			"1> WITH x AS (DELETE FROM ONLY shop.orders RETURNING *) SELECT * FROM x;",
			"1> UPDATE ONLY shop.orders SET id = 0;",
			"1> SET search_path = shop;\n1> DELETE FROM orders;",
			"1> SELECT set_config('search_path', 'shop', false);\n1> DELETE FROM orders;",
			"1> DO $$ BEGIN DELETE FROM shop.orders; END $$;",
			"1> TRUNCATE shop.orders;",
			"1> /* */ DROP TABLE shop.orders;",
			// SQL in a string, run by the server (the second red team's
			// probe wrote a user's table through ts_stat and ts_rewrite).
			"1> SELECT * FROM ts_stat('SELECT to_tsvector(shop.wipe()::text)');",
			"1> SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, (shop.wipe()::text)::tsquery');",
		}},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := localdbtest.Server(t, tt.kind)
			db := userDB(t, srv, tt.driver, tt.setup...)
			dir := t.TempDir()
			for i, body := range tt.cases {
				path := filepath.Join(dir, fmt.Sprintf("hostile%d.txn", i))
				if err := os.WriteFile(path, []byte("CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n"+body+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				code, _, stderr := txlab(t, "run", "--db", srv.DSN(), "--oracle", "none", path)
				if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, "refused") {
					t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line saying refused", body, code, stderr)
				}
				var n int
				if err := db.QueryRow("SELECT count(*) FROM shop.orders WHERE id IN (1, 2)").Scan(&n); err != nil || n != 2 {
					t.Fatalf("after %q: shop.orders holds %d of its rows (%v)", body, n, err)
				}
			}
		})
	}
}

// TestShellRefuses: the shell checks each typed statement as run checks a
// case: a hostile one prints one "refused:" line and the session goes on;
// --trust-case runs a kind the check does not know.
func TestShellRefuses(t *testing.T) {
	script := "1> CREATE TABLE t (a INT);\n1> ATTACH 'x.db' AS v;\n1> DELETE FROM v.data;\n1> REINDEX t;\n1> SELECT 42;\n"
	for _, trust := range []bool{false, true} {
		args := []string{"shell"}
		if trust {
			args = append(args, "--trust-case")
		}
		var out, errb bytes.Buffer
		if code := runIO(t.Context(), args, strings.NewReader(script), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		got := out.String()
		for _, want := range []string{
			"refused: ATTACH opens another database, which txlab refuses\n",
			"refused: names v.data outside txlab's database (main and temp)\n",
			"1> SELECT 42;  ok",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: no %q in\n%s", args, want, got)
			}
		}
		if reindexed := strings.Contains(got, "1> REINDEX t;  ok"); reindexed != trust {
			t.Errorf("%v: REINDEX ran: %v\n%s", args, reindexed, got)
		}
	}
}

// TestRunBatchGoesOnPastRefused: in `txlab run a.txn b.txn` a refused case
// is one line on stderr (and a {case, error} object with --json), like a
// case whose setup fails; the next case runs and the exit status is 2.
func TestRunBatchGoesOnPastRefused(t *testing.T) {
	hostile := filepath.Join(t.TempDir(), "hostile.txn")
	if err := os.WriteFile(hostile, []byte("CREATE TABLE t (a INT);\n1> DELETE FROM/**/v.data;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := txlab(t, "run", "--oracle", "none", hostile, "testdata/good.txn")
	if code != 2 || !strings.Contains(stderr, "hostile.txn: step 1 refused: names v.data") || !strings.Contains(out, "case testdata/good.txn") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	code, out, _ = txlab(t, "run", "--oracle", "none", "--json", hostile, "testdata/good.txn")
	first, _, _ := strings.Cut(out, "\n")
	if code != 2 || !strings.Contains(first, `"error":`) || !strings.Contains(first, "refused") || len(decodeCases(t, out)) != 2 {
		t.Errorf("--json: exit %d, %s", code, out)
	}
}

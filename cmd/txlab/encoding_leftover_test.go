package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// The hostile case files of two classes of issue 41, run with `txlab run`
// against throwaway servers that hold a user's own schema, table, role
// and account, checksummed before and after each run:
//
//   - encoding: a case that changes the connection's encoding (SET
//     client_encoding, SET NAMES gbk, character_set_client, set_config),
//     and a file that is not UTF-8, each with an SJIS/GBK lead byte before a
//     backslash that, read in that encoding, ends a string the check reads
//     as escaped and hides a second statement (CREATE ROLE … SUPERUSER,
//     DELETE or DROP of the user's table);
//   - leftovers: a prepared transaction (XA PREPARE, PREPARE TRANSACTION)
//     that would outlive the run holding its locks, and a name longer than
//     the server keeps.
//
// Each is refused, with and without --trust-case: exit 2, one line on
// stderr, nothing of the user's changed.

// sjisTrickPG is one statement read in UTF-8; in SJIS, 丁's last byte
// (0x81) and the backslash after it are one character, so the E-string
// ends there and CREATE ROLE and DELETE run.
const sjisTrickPG = `1> SELECT E'丁\' ; CREATE ROLE txlab_evil SUPERUSER; DELETE FROM shop.orders; SELECT ''--';`

// gbkTrickMy is the same for MariaDB in GBK (81 5C is one character too).
const gbkTrickMy = `1> SELECT '丁\' ; DROP TABLE shop.orders; CREATE USER evil IDENTIFIED BY 'x'; -- ';`

type hostileFile struct {
	name string
	body string // after the setup CREATE TABLE t (a INT)
	want string // in the one line on stderr
}

func TestHostileEncodingAndLeftovers(t *testing.T) {
	long := strings.Repeat("n", 64)
	for _, tt := range []struct {
		kind     localdb.Kind
		driver   string
		settings []string
		setup    []string
		state    string // a query whose one text value sums up the user's objects
		files    []hostileFile
	}{
		{localdb.Postgres, "pgx", []string{"max_prepared_transactions=4"}, []string{
			"CREATE SCHEMA shop", "CREATE TABLE shop.orders (id INT PRIMARY KEY, total INT)",
			"INSERT INTO shop.orders SELECT g, g * 10 FROM generate_series(1, 50) g",
			"CREATE ROLE app LOGIN PASSWORD 'app-secret'", "CREATE SEQUENCE shop.ids START 7",
		}, `SELECT concat_ws(' | ',
  (SELECT md5(string_agg(id || ':' || total, ',' ORDER BY id)) FROM shop.orders),
  (SELECT string_agg(rolname || ':' || rolsuper, ',' ORDER BY rolname) FROM pg_roles WHERE rolname NOT LIKE 'txlab\_case\_%'),
  (SELECT last_value::text FROM shop.ids),
  (SELECT count(*)::text FROM pg_prepared_xacts))`, []hostileFile{
			{"client-encoding", "1> SET client_encoding = 'SJIS';\n" + sjisTrickPG, "step 1 refused: SET client_encoding changes the encoding"},
			{"set-names", "1> SET NAMES 'GBK';\n" + sjisTrickPG, "step 1 refused: SET NAMES changes the encoding"},
			{"set-config", "1> SELECT set_config('client_encoding', 'BIG5', false);\n" + sjisTrickPG, "step 1 refused: calls set_config"},
			{"pg-settings", "1> UPDATE pg_settings SET setting = 'GB18030' WHERE name = 'client_encoding';\n" + sjisTrickPG, "step 1 refused"},
			{"not-utf8", "1> SELECT E'\x83\\' ; CREATE ROLE txlab_evil SUPERUSER; DELETE FROM shop.orders; SELECT ''--';", "is not valid UTF-8"},
			{"prepare-transaction", "1> BEGIN;\n1> INSERT INTO t VALUES (1);\n1> PREPARE TRANSACTION 'txlab_left';", "step 3 refused: PREPARE TRANSACTION"},
			{"commit-prepared", "1> COMMIT PREPARED 'app_tx';", "step 1 refused: COMMIT PREPARED"},
			{"long-table-name", "1> CREATE TABLE " + long + " (a INT);", "64 bytes long: PostgreSQL cuts names to 63 bytes"},
		}},
		{localdb.MariaDB, "mysql", nil, []string{
			"CREATE DATABASE shop", "CREATE TABLE shop.orders (id INT PRIMARY KEY, total INT) ENGINE=InnoDB",
			"INSERT INTO shop.orders VALUES (1, 10), (2, 20), (3, 30)",
			"CREATE USER app IDENTIFIED BY 'app-secret'",
		}, `SELECT CONCAT_WS(' | ',
  (SELECT MD5(GROUP_CONCAT(id, ':', total ORDER BY id)) FROM shop.orders),
  (SELECT GROUP_CONCAT(User, '@', Host, ':', Super_priv ORDER BY User, Host) FROM mysql.user WHERE User NOT LIKE 'txlab\_case\_%'))`, []hostileFile{
			{"set-names-gbk", "1> SET NAMES gbk;\n" + gbkTrickMy, "step 1 refused: SET NAMES changes the encoding"},
			{"character-set", "1> SET CHARACTER SET sjis;\n" + gbkTrickMy, "step 1 refused: SET CHARACTER SET changes the encoding"},
			{"character-set-client", "1> SET character_set_client = big5;\n" + gbkTrickMy, "step 1 refused: SET character_set_client"},
			{"session-variable", "1> SET @@session.character_set_client = cp932;\n" + gbkTrickMy, "step 1 refused: SET character_set_client"},
			{"names-in-a-list", "1> SET autocommit = 1, NAMES gbk;\n" + gbkTrickMy, "step 1 refused: SET NAMES changes"},
			{"collation", "1> SET collation_connection = gbk_chinese_ci;\n" + gbkTrickMy, "step 1 refused: SET collation_connection"},
			{"not-utf8", "1> SELECT '\xbf\\' ; DROP TABLE shop.orders; -- ';", "is not valid UTF-8"},
			{"xa-prepare", "1> XA START 'txlab_left';\n1> INSERT INTO t VALUES (1);\n1> XA END 'txlab_left';\n1> XA PREPARE 'txlab_left';", "step 1 refused: XA START"},
			{"xa-recover", "1> XA RECOVER;", "step 1 refused: XA RECOVER"},
			{"long-table-name", "1> CREATE TABLE " + long + "x (a INT);", "65 characters long"},
		}},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := localdbtest.Server(t, tt.kind, tt.settings...)
			db := userDB(t, srv, tt.driver, tt.setup...)
			before := userState(t, db, tt.state)
			t.Logf("the user's state: %s", before)
			dir := t.TempDir()
			for _, f := range tt.files {
				path := filepath.Join(dir, f.name+".txn")
				if err := os.WriteFile(path, []byte("CREATE TABLE t (a INT);\n"+f.body+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, trust := range []bool{false, true} {
					args := []string{"run", "--db", srv.DSN(), "--oracle", "none", path}
					if trust {
						args = append(args, "--trust-case")
					}
					code, _, stderr := txlab(t, args...)
					if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, f.want) {
						t.Errorf("%s (trust %v): exit %d, stderr %q; want exit 2 and one line with %q", f.name, trust, code, stderr, f.want)
					} else if !trust {
						t.Logf("%s: %s", f.name, strings.TrimSpace(stderr))
					}
					if after := userState(t, db, tt.state); after != before {
						t.Fatalf("%s (trust %v): the user's objects changed:\nbefore %s\nafter  %s", f.name, trust, before, after)
					}
				}
			}
		})
	}
}

// userState is the one value state returns: the user's rows, roles and
// accounts (and on PostgreSQL its sequence and prepared transactions).
func userState(t *testing.T, db *sql.DB, state string) string {
	t.Helper()
	var s sql.NullString
	if err := db.QueryRow(state).Scan(&s); err != nil {
		t.Fatalf("read the user's state: %v", err)
	}
	return s.String
}

// TestEncodingPinnedEndToEnd: the SJIS trick with no SET in the case, on
// a --db URL that asks for SJIS (and PGCLIENTENCODING too), runs as the
// one SELECT the check read, and creates no role; on MariaDB a URL
// parameter that sets the character set is refused.
func TestEncodingPinnedEndToEnd(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		t.Setenv("PGCLIENTENCODING", "SJIS")
		srv := localdbtest.Server(t, localdb.Postgres)
		db := userDB(t, srv, "pgx", "CREATE SCHEMA shop", "CREATE TABLE shop.orders (id INT)", "INSERT INTO shop.orders VALUES (1), (2)")
		path := filepath.Join(t.TempDir(), "trick.txn")
		if err := os.WriteFile(path, []byte(sjisTrickPG+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := txlab(t, "run", "--db", srv.DSN()+"&client_encoding=SJIS", "--oracle", "none", path)
		if code != 0 || !strings.Contains(stdout, `丁' ; CREATE ROLE txlab_evil SUPERUSER; DELETE FROM shop.orders; SELECT '--`) {
			t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		var roles, rows int
		if err := db.QueryRow("SELECT (SELECT count(*) FROM pg_roles WHERE rolname = 'txlab_evil'), (SELECT count(*) FROM shop.orders)").Scan(&roles, &rows); err != nil || roles != 0 || rows != 2 {
			t.Errorf("txlab_evil roles %d, shop.orders rows %d (%v)", roles, rows, err)
		}
	})
	t.Run("mariadb", func(t *testing.T) {
		srv := localdbtest.Server(t, localdb.MariaDB)
		code, _, stderr := txlab(t, "run", "--db", srv.DSN()+"?charset=gbk", "--oracle", "none", "../../examples/mariadb-rc-update-delete.txn")
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, "drop charset from the URL") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestPreparedLeftBehind: a prepared transaction left on the server (by an
// older txlab, or anyone) that holds a lock on txlab's registry makes the
// next run refuse at once with one line naming it and the statement that
// ends it, instead of hanging on its lock; once it is ended, the run works.
func TestPreparedLeftBehind(t *testing.T) {
	c := "../../examples/mariadb-rc-update-delete.txn"
	for _, tt := range []struct {
		kind            localdb.Kind
		driver          string
		settings        []string
		prepare         []string
		want, end, gone string
	}{
		{localdb.Postgres, "pgx", []string{"max_prepared_transactions=4"},
			[]string{"BEGIN", "LOCK TABLE txlab.txlab_owned_tables IN ACCESS EXCLUSIVE MODE", "PREPARE TRANSACTION 'stale'"},
			`holds 1 prepared transaction, which keep their locks until ended and would make this run wait: 'stale' (role txlab); ` +
				`unless another application still needs them, end them as their role or a superuser, in this database: ROLLBACK PREPARED 'stale';`,
			"ROLLBACK PREPARED 'stale'", "SELECT count(*) FROM pg_prepared_xacts"},
		{localdb.MariaDB, "mysql", nil,
			[]string{"XA START 'stale'", "SELECT * FROM txlab.txlab_owned_tables FOR UPDATE", "XA END 'stale'", "XA PREPARE 'stale'"},
			`holds 1 prepared XA transaction, which keep their locks until ended and would make this run wait: 'stale'; ` +
				`unless another application still needs them, end them: XA ROLLBACK 'stale';`,
			"XA ROLLBACK 'stale'", "SELECT COUNT(*) FROM information_schema.innodb_trx"},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := localdbtest.Server(t, tt.kind, tt.settings...)
			if code, _, stderr := txlab(t, "run", "--db", srv.DSN(), "--oracle", "none", c); code != 0 {
				t.Fatalf("first run: exit %d: %s", code, stderr)
			}
			db := userDB(t, srv, tt.driver)
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range tt.prepare {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			conn.Close()
			for _, cmd := range [][]string{{"run", c}, {"fuzz", "--cases", "1"}} {
				start := time.Now()
				args := append([]string{cmd[0], "--db", srv.DSN(), "--oracle", "none"}, cmd[1:]...)
				code, _, stderr := txlab(t, args...)
				if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, tt.want) {
					t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with\n%s", cmd[0], code, stderr, tt.want)
				}
				if el := time.Since(start); el > 20*time.Second {
					t.Errorf("%s: refused after %v", cmd[0], el)
				}
			}
			if _, err := db.Exec(tt.end); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := txlab(t, "run", "--db", srv.DSN(), "--oracle", "none", c); code != 0 {
				t.Errorf("after %s: exit %d: %s", tt.end, code, stderr)
			}
			var n int
			if err := db.QueryRow(tt.gone).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: %d, %v", tt.gone, n, err)
			}
		})
	}
}

// TestSequenceDroppedWithCase: a free-standing sequence a case made is
// gone after the run, so the next run's CREATE SEQUENCE of the same name
// works (Close reassigned it to the --db role and nothing dropped it: the
// next campaign failed with 42P07).
func TestSequenceDroppedWithCase(t *testing.T) {
	srv := localdbtest.Server(t, localdb.Postgres)
	path := filepath.Join(t.TempDir(), "seq.txn")
	body := "CREATE SEQUENCE s START 5;\nCREATE TABLE t (id INT PRIMARY KEY, v INT);\n1> INSERT INTO t VALUES (nextval('s'), 1);\n1> SELECT * FROM t;\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 3; run++ {
		code, stdout, stderr := txlab(t, "run", "--db", srv.DSN(), "--oracle", "none", path)
		if code != 0 || !strings.Contains(stdout, "5 | 1") && !strings.Contains(stdout, "5, 1") && !strings.Contains(stdout, "(5, 1)") {
			t.Fatalf("run %d: exit %d\nstdout %s\nstderr %s", run, code, stdout, stderr)
		}
	}
	db := userDB(t, srv, "pgx")
	var left string
	if err := db.QueryRow("SELECT coalesce(string_agg(c.oid::regclass::text, ', '), '') FROM pg_class c WHERE c.relkind = 'S' AND c.relnamespace = 'txlab'::regnamespace").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != "" {
		t.Errorf("sequences left in schema txlab after the runs: %s", left)
	}
}

// TestShellRefusesEncoding: the shell checks a typed statement as run
// checks a case: one that is not UTF-8, or changes the encoding, or uses
// XA, prints one "refused:" line and the session goes on.
func TestShellRefusesEncoding(t *testing.T) {
	script := "1> CREATE TABLE t (a TEXT);\n1> INSERT INTO t VALUES ('\xbf\\\\');\n1> SELECT 'caf\xe9';\n1> SELECT 42;\n"
	var out, errb strings.Builder
	if code := runIO(t.Context(), []string{"shell"}, strings.NewReader(script), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"refused: is not valid UTF-8 at byte 23: txlab talks to the server in UTF-8 only",
		"refused: is not valid UTF-8 at byte 11:",
		"1> SELECT 42;  ok",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

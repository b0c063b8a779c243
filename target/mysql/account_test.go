package mysql

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// rootDB is a connection to the shared server as the account its tests
// give txlab (root): the user's side, to set up and to look.
func rootDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", shared.Server(t).DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustRoot(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestCaseAccountReachesNothingElse: a case session, whatever it runs, can
// change nothing outside txlab's database — the server refuses, not a check
// of txlab's — while the case's own work in txlab's database succeeds.
func TestCaseAccountReachesNothingElse(t *testing.T) {
	root := rootDB(t)
	mustRoot(t, root, "CREATE DATABASE IF NOT EXISTS shop", "CREATE TABLE IF NOT EXISTS shop.orders (id INT PRIMARY KEY)",
		"DELETE FROM shop.orders", "INSERT INTO shop.orders VALUES (1), (2)")
	tg := open(t, "txlab_priv")
	var rootID string
	if err := root.QueryRow("SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE mine (id INT PRIMARY KEY, v INT)", "INSERT INTO mine VALUES (1, 1)",
		"CREATE TEMPORARY TABLE scratch (id INT)", "CREATE VIEW mine_v AS SELECT * FROM mine",
		"SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE", "BEGIN", "UPDATE mine SET v = 2", "COMMIT")
	hostile := []string{
		"DELETE FROM shop.orders",
		"DELETE b FROM mine a, shop.orders b",
		"UPDATE mine a, shop.orders b SET b.id = b.id + 10",
		"DROP TABLE mine, shop.orders",
		"TRUNCATE shop.orders",
		"RENAME TABLE shop.orders TO txlab_priv.stolen",
		"CREATE TABLE stolen AS SELECT * FROM shop.orders",
		"SET GLOBAL event_scheduler = ON",
		"CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO DELETE FROM shop.orders",
		"CREATE PROCEDURE p() DELETE FROM mine",
		"CREATE TRIGGER tr AFTER INSERT ON mine FOR EACH ROW DELETE FROM shop.orders",
		"GRANT ALL ON *.* TO CURRENT_USER()",
		"CREATE USER evil IDENTIFIED BY 'x'",
		"SET PASSWORD FOR root@'127.0.0.1' = PASSWORD('x')",
		"KILL " + rootID,
		"SELECT * FROM mine INTO OUTFILE '/tmp/txlab-priv-outfile'",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE mine",
		"SHUTDOWN",
		"DROP DATABASE shop",
	}
	for _, q := range hostile {
		if _, err := s.Exec(targettest.Ctx(t), q); err == nil {
			t.Errorf("%s: ran as the case account", q)
		} else if e := target.AsError(err); e == nil || e.Class == target.ClassConnection {
			t.Errorf("%s: %v, want the server's refusal", q, err)
		}
	}
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM shop.orders").Scan(&n); err != nil || n != 2 {
		t.Errorf("shop.orders after the hostile statements: %d rows (%v), want 2", n, err)
	}
	var ev int
	root.QueryRow("SELECT COUNT(*) FROM information_schema.EVENTS").Scan(&ev)
	if ev != 0 {
		t.Errorf("%d events exist after the hostile statements", ev)
	}
	if err := root.Ping(); err != nil {
		t.Errorf("the user's connection after KILL: %v", err)
	}
}

// TestCaseAccountLifetime: the account exists while the target is open,
// reaches txlab's database alone, and is gone after Close; a second target
// on the same database is refused while the first is open.
func TestCaseAccountLifetime(t *testing.T) {
	root := rootDB(t)
	tg, err := OpenURL(targettest.Ctx(t), shared.Server(t).DSN(), "txlab_life")
	if err != nil {
		t.Fatal(err)
	}
	if !tg.account.created || tg.account.user != "txlab_case_txlab_life" {
		t.Fatalf("case account = %+v, want a created txlab_case_txlab_life", tg.account)
	}
	grants, err := tg.grantsOf(targettest.Ctx(t), tg.account.String())
	if err != nil {
		t.Fatal(err)
	}
	if extra := beyondSchema(grants, "txlab_life"); len(extra) > 0 || len(grants) < 2 {
		t.Errorf("grants of the case account = %q; beyond its database: %q", grants, extra)
	}
	if _, err := OpenURL(targettest.Ctx(t), shared.Server(t).DSN(), "txlab_life"); err == nil || !strings.Contains(err.Error(), "in use by another txlab run") {
		t.Errorf("a second target on the same database: %v, want refused as in use", err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM mysql.user WHERE User = 'txlab_case_txlab_life'").Scan(&n); err != nil || n != 0 {
		t.Errorf("after Close: %d case accounts (%v), want none", n, err)
	}
	again, err := OpenURL(targettest.Ctx(t), shared.Server(t).DSN(), "txlab_life")
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	again.Close()
}

// TestLeastPrivilegedURL: an account of the user's that reaches only
// txlab's databases runs the cases itself; one that reaches more, and may
// not create accounts, is refused with the statements to run.
func TestLeastPrivilegedURL(t *testing.T) {
	root := rootDB(t)
	mustRoot(t, root,
		"CREATE USER IF NOT EXISTS 'tl'@'127.0.0.1' IDENTIFIED BY 'pw'",
		"GRANT "+casePrivileges+" ON `txlab\\_lp`.* TO 'tl'@'127.0.0.1'",
		"CREATE USER IF NOT EXISTS 'wide'@'127.0.0.1' IDENTIFIED BY 'pw'",
		"GRANT "+casePrivileges+" ON `txlab\\_lp`.* TO 'wide'@'127.0.0.1'",
		"GRANT SELECT, DELETE ON `shop`.* TO 'wide'@'127.0.0.1'",
		"CREATE DATABASE IF NOT EXISTS txlab_lp")
	t.Cleanup(func() { root.Exec("DROP USER IF EXISTS 'tl'@'127.0.0.1', 'wide'@'127.0.0.1'") })
	dsn := strings.Replace(shared.Server(t).DSN(), "root@", "tl:pw@", 1)
	tg, err := OpenURL(targettest.Ctx(t), dsn, "txlab_lp")
	if err != nil {
		t.Fatal(err)
	}
	if tg.account.created || tg.account.user != "tl" {
		t.Errorf("case account for a least-privileged --db = %+v, want tl itself", tg.account)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE IF NOT EXISTS x (id INT)", "DROP TABLE x")
	// Without the PROCESS privilege the server shows no lock waits: the
	// executor is told so, and falls back to timeouts.
	if _, err := tg.Waiting(targettest.Ctx(t), []string{s.ID()}); !errors.Is(err, target.ErrNoIntrospection) {
		t.Errorf("Waiting without PROCESS = %v, want ErrNoIntrospection", err)
	}
	tg.Close()
	// With PROCESS, a read-only global privilege, the account is still
	// least-privileged, and lock waits are seen.
	mustRoot(t, root, "GRANT PROCESS ON *.* TO 'tl'@'127.0.0.1'")
	tg, err = OpenURL(targettest.Ctx(t), dsn, "txlab_lp")
	if err != nil {
		t.Fatal(err)
	}
	targettest.Waiting(t, tg)
	tg.Close()

	_, err = OpenURL(targettest.Ctx(t), strings.Replace(shared.Server(t).DSN(), "root@", "wide:pw@", 1), "txlab_lp")
	if err == nil || !strings.Contains(err.Error(), "CREATE USER 'txlab'") || !strings.Contains(err.Error(), "GRANT "+casePrivileges) {
		t.Errorf("a --db account that reaches shop: %v, want refused with the statements to run", err)
	}
}

func TestBeyondSchema(t *testing.T) {
	for _, c := range []struct {
		grant string
		own   bool
	}{
		{"GRANT USAGE ON *.* TO `u`@`h` IDENTIFIED BY PASSWORD '*AB'", true},
		{"GRANT SELECT, INSERT ON `txlab`.* TO `u`@`h`", true},
		{"GRANT ALL PRIVILEGES ON `txlab\\_w1`.* TO `u`@`h`", true},
		{"GRANT ALL PRIVILEGES ON `txlab\\_%`.* TO `u`@`h`", true},
		{"GRANT SELECT ON `txlab`.`t` TO `u`@`h`", true},
		{"GRANT SELECT ON txlab.* TO 'u'@'h'", true},
		{"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION", false},
		{"GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION", false},
		{"GRANT SELECT ON `shop`.* TO `u`@`h`", false},
		{"GRANT SELECT ON `txlab%`.* TO `u`@`h`", false}, // txlabshop too
		{"GRANT SELECT ON `txlab_`.* TO `u`@`h`", false}, // _ is any character
		{"GRANT SELECT ON `txla_`.* TO `u`@`h`", false},
		{"GRANT `admin` TO `u`@`h`", false},
		{"GRANT FILE ON *.* TO `u`@`h`", false},
		{"GRANT PROCESS ON *.* TO `u`@`h`", true},
		{"GRANT PROCESS, FILE ON *.* TO `u`@`h`", false},
	} {
		if got := len(beyondSchema([]string{c.grant}, "txlab")) == 0; got != c.own {
			t.Errorf("%s: within txlab's databases = %v, want %v", c.grant, got, c.own)
		}
	}
	if got := caseAccountName(strings.Repeat("s", 40)); len(got) > 32 || !strings.HasPrefix(got, "txlab_case_") {
		t.Errorf("caseAccountName(long) = %q", got)
	}
}

// TestCaseAccountNameTaken: an account of the case account's name that
// reaches beyond txlab's database is a user's: txlab refuses, and neither
// re-keys nor drops it.
func TestCaseAccountNameTaken(t *testing.T) {
	root := rootDB(t)
	acct := "'" + caseAccountName("txlab_taken") + "'@'127.0.0.1'"
	mustRoot(t, root, "CREATE USER IF NOT EXISTS "+acct+" IDENTIFIED BY 'theirs'", "GRANT SELECT, DELETE ON shop.* TO "+acct)
	t.Cleanup(func() { root.Exec("DROP USER IF EXISTS " + acct) })
	_, err := OpenURL(targettest.Ctx(t), shared.Server(t).DSN(), "txlab_taken")
	if err == nil || !strings.Contains(err.Error(), "exists with privileges beyond") {
		t.Fatalf("Open with the case account's name taken: %v, want refused", err)
	}
	dsn := strings.Replace(shared.Server(t).DriverDSN(), "root@", caseAccountName("txlab_taken")+":theirs@", 1)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Errorf("the user's account after the refusal: %v, want its own password still working", err)
	}
}

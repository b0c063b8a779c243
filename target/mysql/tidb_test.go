package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// The same adapter on a real TiDB: one server for the package, started by
// the first test that asks (it skips when txlab's build of TiDB is missing,
// fails under CI=true) and stopped by TestMain.
var tidb struct {
	once   sync.Once
	shared *localdbtest.Shared
}

func tidbServer(t *testing.T) *localdb.Server {
	t.Helper()
	localdbtest.Require(t, localdb.TiDB)
	tidb.once.Do(func() { tidb.shared = localdbtest.StartShared(localdb.TiDB) })
	return tidb.shared.Server(t)
}

func stopTiDB() {
	if tidb.shared != nil {
		tidb.shared.Stop()
	}
}

// openTiDB connects to the shared TiDB in a schema of the test's own.
func openTiDB(t *testing.T, schema string) *Target {
	t.Helper()
	tg, err := OpenURL(targettest.Ctx(t), tidbServer(t).DSN(), schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// tidbRoot is the user's side of the shared TiDB: root.
func tidbRoot(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", tidbServer(t).DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestTiDBInfo(t *testing.T) {
	tg := openTiDB(t, "txlab_info")
	info := tg.Info()
	if info.DBMS != TiDB || !strings.Contains(info.Version, "TiDB-v"+localdb.TiDBVersion) || !info.NoSharedLocks || info.Returning {
		t.Errorf("Info = %+v, want TiDB v%s without shared locks or RETURNING", info, localdb.TiDBVersion)
	}
	if got := tg.Levels(); len(got) != 2 {
		t.Errorf("Levels = %v, want RC and RR", got)
	}
}

func TestTiDBIsolation(t *testing.T) {
	targettest.Isolation(t, openTiDB(t, "txlab"), "SELECT @@transaction_isolation", map[target.Level]string{
		target.ReadCommitted: string(target.ReadCommitted), target.RepeatableRead: string(target.RepeatableRead),
	})
}

func TestTiDBRows(t *testing.T) { targettest.Rows(t, openTiDB(t, "txlab")) }
func TestTiDBErrors(t *testing.T) {
	targettest.Errors(t, openTiDB(t, "txlab"), "testdata/errors_tidb.txt")
}
func TestTiDBResetAndDump(t *testing.T) { targettest.ResetAndDump(t, openTiDB(t, "txlab")) }
func TestTiDBForeignSchema(t *testing.T) {
	targettest.ForeignSchema(t, openTiDB(t, "txlab_foreign"))
}

// TestTiDBWaiting: a pessimistic transaction waiting for a row lock shows in
// TiDB's lock views, and Waiting reports it (and not the holder).
func TestTiDBWaiting(t *testing.T) { targettest.Waiting(t, openTiDB(t, "txlab")) }

// TestTiDBWaitingCommit: a write that is not pessimistic (an autocommit
// statement, an optimistic COMMIT) and meets a lock retries in state
// Committing; Waiting reports it once that has lasted committingWait.
func TestTiDBWaitingCommit(t *testing.T) {
	tg := openTiDB(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE w (id INT PRIMARY KEY, v INT)", "INSERT INTO w VALUES (1, 0), (2, 0)")
	holder, auto, opt := targettest.Session(t, tg), targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, holder, "BEGIN", "UPDATE w SET v = 1 WHERE id = 1", "UPDATE w SET v = 1 WHERE id = 2")
	targettest.MustExec(t, opt, "BEGIN OPTIMISTIC", "UPDATE w SET v = 3 WHERE id = 2")
	done := map[string]chan error{auto.ID(): make(chan error, 1), opt.ID(): make(chan error, 1)}
	go func() {
		_, err := auto.Exec(context.Background(), "UPDATE w SET v = 2 WHERE id = 1")
		done[auto.ID()] <- err
	}()
	go func() { _, err := opt.Exec(context.Background(), "COMMIT"); done[opt.ID()] <- err }()
	ids := []string{holder.ID(), auto.ID(), opt.ID()}
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, err := tg.Waiting(targettest.Ctx(t), ids)
		if err != nil {
			t.Fatal(err)
		}
		if w[holder.ID()] {
			t.Fatal("the lock holder is reported waiting")
		}
		if w[auto.ID()] && w[opt.ID()] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10s Waiting = %v (autocommit %s, optimistic COMMIT %s)", w, auto.ID(), opt.ID())
		}
		time.Sleep(2 * time.Millisecond)
	}
	for id, ch := range done {
		select {
		case err := <-ch:
			t.Fatalf("session %s finished while the locks were held: %v", id, err)
		default:
		}
	}
	targettest.MustExec(t, holder, "COMMIT")
	if err := <-done[auto.ID()]; err != nil {
		t.Errorf("autocommit UPDATE after the holder committed: %v", err)
	}
	err := <-done[opt.ID()]
	if e := target.AsError(err); e == nil || e.Class != target.ClassSerialization {
		t.Errorf("optimistic COMMIT after the holder committed = %v, want a write conflict", err)
	}
	w, err := tg.Waiting(targettest.Ctx(t), ids)
	if err != nil || len(w) > 0 && (w[auto.ID()] || w[opt.ID()]) {
		t.Errorf("after both finished Waiting = %v, %v", w, err)
	}
}

// TestTiDBWaitingMetadataLock: DDL waiting for a table an open transaction
// used waits in its DDL job (mysql.tidb_mdl_view), not in a transaction.
func TestTiDBWaitingMetadataLock(t *testing.T) { waitingMetadataLock(t, openTiDB(t, "txlab")) }

// TestTiDBDeadlock: TiDB's pessimistic deadlock detector picks one victim,
// reported as a rolled-back deadlock.
func TestTiDBDeadlock(t *testing.T) { targettest.Deadlock(t, openTiDB(t, "txlab")) }

// TestTiDBCancel: a cancelled statement waiting for a lock is killed on the
// server at once (KILL), so it no longer waits there.
func TestTiDBCancel(t *testing.T) { cancelKills(t, openTiDB(t, "txlab")) }

// TestTiDBOptimisticConflict: in an optimistic transaction a write-write
// conflict shows at COMMIT, as a serialization failure that ended the
// transaction; nothing waits.
func TestTiDBOptimisticConflict(t *testing.T) {
	tg := openTiDB(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE o (id INT PRIMARY KEY, v INT)", "INSERT INTO o VALUES (1, 0)")
	a, b := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, a, "BEGIN OPTIMISTIC", "UPDATE o SET v = 1 WHERE id = 1")
	targettest.MustExec(t, b, "BEGIN OPTIMISTIC", "UPDATE o SET v = 2 WHERE id = 1", "COMMIT")
	_, err := a.Exec(targettest.Ctx(t), "COMMIT")
	if e := target.AsError(err); e == nil || e.Class != target.ClassSerialization || !e.RolledBack {
		t.Errorf("COMMIT of the loser = %#v, want a rolled-back serialization failure", err)
	}
	res := targettest.MustExec(t, a, "SELECT v FROM o")
	if len(res.Rows) != 1 || res.Rows[0][0].S != "2" {
		t.Errorf("after the conflict v = %v, want 2", res.Rows)
	}
}

// TestTiDBCaseAccount: on TiDB too the case sessions log in as an account
// of txlab's database alone, which is gone after Close, and a second run
// on the same database is refused while the first holds its lock.
func TestTiDBCaseAccount(t *testing.T) {
	root := tidbRoot(t)
	mustRoot(t, root, "CREATE DATABASE IF NOT EXISTS shop", "CREATE TABLE IF NOT EXISTS shop.orders (id INT PRIMARY KEY)",
		"DELETE FROM shop.orders", "INSERT INTO shop.orders VALUES (1), (2)")
	tg, err := OpenURL(targettest.Ctx(t), tidbServer(t).DSN(), "txlab_priv")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if !tg.account.created || tg.account.user != "txlab_case_txlab_priv" {
		t.Fatalf("case account = %+v, want a created txlab_case_txlab_priv", tg.account)
	}
	grants, err := tg.grantsOf(targettest.Ctx(t), tg.account.String())
	if err != nil {
		t.Fatal(err)
	}
	if extra := beyondSchema(grants, "txlab_priv"); len(extra) > 0 || len(grants) < 2 {
		t.Errorf("grants of the case account = %q; beyond its database: %q", grants, extra)
	}
	if _, err := OpenURL(targettest.Ctx(t), tidbServer(t).DSN(), "txlab_priv"); err == nil || !strings.Contains(err.Error(), "in use by another txlab run") {
		t.Errorf("a second target on the same database: %v, want refused as in use", err)
	}
	var rootID string
	if err := root.QueryRow("SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE mine (id INT PRIMARY KEY, v INT)", "INSERT INTO mine VALUES (1, 1)",
		"CREATE TEMPORARY TABLE scratch (id INT)", "CREATE VIEW mine_v AS SELECT * FROM mine",
		"BEGIN", "UPDATE mine SET v = 2", "COMMIT", "DROP VIEW mine_v", "DROP TABLE mine")
	for _, q := range []string{
		"DELETE FROM shop.orders",
		"DROP TABLE shop.orders",
		"TRUNCATE shop.orders",
		"RENAME TABLE shop.orders TO txlab_priv.stolen",
		"CREATE TABLE stolen AS SELECT * FROM shop.orders",
		"SELECT * FROM mysql.user",
		"SET GLOBAL tidb_txn_mode = 'optimistic'",
		"GRANT ALL ON *.* TO CURRENT_USER()",
		"CREATE USER evil IDENTIFIED BY 'x'",
		"KILL " + rootID,
		"KILL TIDB " + rootID,
		"DROP DATABASE shop",
	} {
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
	if err := root.Ping(); err != nil {
		t.Errorf("the user's connection after KILL: %v", err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := root.QueryRow("SELECT COUNT(*) FROM mysql.user WHERE User = 'txlab_case_txlab_priv'").Scan(&n); err != nil || n != 0 {
		t.Errorf("after Close: %d case accounts (%v), want none", n, err)
	}
	again, err := OpenURL(targettest.Ctx(t), tidbServer(t).DSN(), "txlab_priv")
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	again.Close()
}

// TestTiDBLeastPrivilegedURL: on TiDB too an account of the user's that
// reaches only txlab's databases runs the cases itself; without PROCESS
// it sees no lock waits (and says so), with PROCESS it sees them.
func TestTiDBLeastPrivilegedURL(t *testing.T) {
	root := tidbRoot(t)
	mustRoot(t, root,
		"CREATE USER IF NOT EXISTS 'tl'@'127.0.0.1' IDENTIFIED BY 'pw'",
		"GRANT "+casePrivileges+" ON `txlab\\_lp`.* TO 'tl'@'127.0.0.1'",
		"CREATE DATABASE IF NOT EXISTS txlab_lp")
	t.Cleanup(func() { root.Exec("DROP USER IF EXISTS 'tl'@'127.0.0.1'") })
	dsn := strings.Replace(tidbServer(t).DSN(), "root@", "tl:pw@", 1)
	tg, err := OpenURL(targettest.Ctx(t), dsn, "txlab_lp")
	if err != nil {
		t.Fatal(err)
	}
	if tg.account.created || tg.account.user != "tl" {
		t.Errorf("case account for a least-privileged --db = %+v, want tl itself", tg.account)
	}
	s := targettest.Session(t, tg)
	if _, err := tg.Waiting(targettest.Ctx(t), []string{s.ID()}); !errors.Is(err, target.ErrNoIntrospection) {
		t.Errorf("Waiting without PROCESS = %v, want ErrNoIntrospection", err)
	}
	tg.Close()
	mustRoot(t, root, "GRANT PROCESS ON *.* TO 'tl'@'127.0.0.1'")
	tg, err = OpenURL(targettest.Ctx(t), dsn, "txlab_lp")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	targettest.Waiting(t, tg)
}

package mysql

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// One MariaDB server for the whole package: starting one takes seconds.
var shared *localdbtest.Shared

func TestMain(m *testing.M) {
	shared = localdbtest.StartShared(localdb.MariaDB)
	code := m.Run()
	shared.Stop()
	stopTiDB() // if a TiDB test started it (tidb_test.go)
	os.Exit(code)
}

// open connects to the shared server in a schema of the test's own.
func open(t *testing.T, schema string) *Target {
	t.Helper()
	tg, err := OpenURL(targettest.Ctx(t), shared.Server(t).DSN(), schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func TestInfo(t *testing.T) {
	info := open(t, "txlab_info").Info()
	if info.DBMS != MariaDB || info.Schema != "txlab_info" || info.Version == "" {
		t.Errorf("Info = %+v", info)
	}
}

func TestIsolation(t *testing.T) {
	want := map[target.Level]string{}
	for _, l := range allLevels {
		want[l] = string(l) // MariaDB spells them READ-COMMITTED etc.
	}
	targettest.Isolation(t, open(t, "txlab"), "SELECT @@SESSION.tx_isolation", want)
}

func TestRows(t *testing.T)          { targettest.Rows(t, open(t, "txlab")) }
func TestErrors(t *testing.T)        { targettest.Errors(t, open(t, "txlab"), "testdata/errors_mariadb.txt") }
func TestResetAndDump(t *testing.T)  { targettest.ResetAndDump(t, open(t, "txlab")) }
func TestForeignSchema(t *testing.T) { targettest.ForeignSchema(t, open(t, "txlab_foreign")) }
func TestForeignKeys(t *testing.T)   { targettest.ForeignKeys(t, open(t, "txlab")) }
func TestWaiting(t *testing.T)       { targettest.Waiting(t, open(t, "txlab")) }
func TestDeadlock(t *testing.T)      { targettest.Deadlock(t, open(t, "txlab")) }

// TestSnapshotIsolationConflict: with innodb_snapshot_isolation a lost update
// under REPEATABLE READ fails with 1020, which rolls the transaction back.
func TestSnapshotIsolationConflict(t *testing.T) {
	tg := open(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE c (id INT PRIMARY KEY, v INT)", "INSERT INTO c VALUES (1, 0)")
	a, b := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, a, "SET SESSION innodb_snapshot_isolation = ON", "BEGIN", "SELECT v FROM c")
	targettest.MustExec(t, b, "UPDATE c SET v = 1 WHERE id = 1")
	_, err := a.Exec(targettest.Ctx(t), "UPDATE c SET v = 2 WHERE id = 1")
	if e := target.AsError(err); e == nil || e.Class != target.ClassSerialization || e.Code != "1020" || !e.RolledBack {
		t.Errorf("lost update under snapshot isolation: %#v, want rolled-back serialization 1020", err)
	}
	targettest.MustExec(t, a, "ROLLBACK")
}

// TestCancel: cancelling a statement blocked on a lock returns promptly and
// the server releases the cancelled session, so the lock holder's later
// statements are unaffected.
func TestCancel(t *testing.T) { cancelKills(t, open(t, "txlab")) }

// cancelKills: a statement waiting for a lock, cancelled, returns a context
// error promptly and no longer waits on the server; the holder commits.
func cancelKills(t *testing.T, tg *Target) {
	t.Helper()
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, err := tg.Waiting(targettest.Ctx(t), []string{blocked.ID()})
		if err != nil {
			t.Fatal(err)
		}
		if !w[blocked.ID()] {
			break
		}
		if time.Now().After(deadline) {
			rows, _ := tg.catalogRows(t, "SELECT ID, COMMAND, STATE, INFO FROM information_schema.PROCESSLIST")
			t.Fatalf("the cancelled session %s still waits on the server: %v", blocked.ID(), rows)
		}
		time.Sleep(5 * time.Millisecond)
	}
	targettest.MustExec(t, holder, "COMMIT")
}

// TestWaitingMetadataLock: DDL waiting for a table used by an open
// transaction waits in the SQL layer, not in InnoDB.
func TestWaitingMetadataLock(t *testing.T) { waitingMetadataLock(t, open(t, "txlab")) }

// waitingMetadataLock: an ALTER TABLE behind an open transaction that read
// the table is reported waiting, the transaction is not, and the DDL ends
// once it commits.
func waitingMetadataLock(t *testing.T, tg *Target) {
	t.Helper()
	targettest.Fresh(t, tg, "CREATE TABLE m (id INT PRIMARY KEY)")
	reader, ddl := targettest.Session(t, tg), targettest.Session(t, tg)
	targettest.MustExec(t, reader, "BEGIN", "SELECT * FROM m")
	done := make(chan error, 1)
	go func() { _, err := ddl.Exec(context.Background(), "ALTER TABLE m ADD COLUMN x INT"); done <- err }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, err := tg.Waiting(targettest.Ctx(t), []string{ddl.ID(), reader.ID()})
		if err != nil {
			t.Fatal(err)
		}
		if w[reader.ID()] {
			t.Fatal("the lock holder is reported waiting")
		}
		if w[ddl.ID()] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ALTER TABLE never reported waiting")
		}
		time.Sleep(2 * time.Millisecond)
	}
	targettest.MustExec(t, reader, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	targettest.MustExec(t, reader, "SELECT x FROM m")
}

func (tg *Target) catalogRows(t *testing.T, q string) ([]target.Row, error) {
	return catalog{tg}.TableRowsQuery(targettest.Ctx(t), q)
}

// TestSettings reads a setting the semantics table depends on, as the
// documentation spells it, and leaves out a name the server does not know.
func TestSettings(t *testing.T) {
	got, err := open(t, "txlab").Settings(context.Background(), []string{"innodb_snapshot_isolation", "txlab_no_such_setting"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["innodb_snapshot_isolation"] != "OFF" {
		t.Errorf("Settings = %v, want only innodb_snapshot_isolation=OFF (the 10.11 default)", got)
	}
}

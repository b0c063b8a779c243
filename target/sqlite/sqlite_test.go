package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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

package sqlite

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/txlab/txlab/target/targettest"
)

// TestSessionConfined: a case session cannot open, change or create any
// file but txlab's database, whatever it runs, and still does a case's work.
func TestSessionConfined(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.db")
	vdb, err := sql.Open("sqlite", victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE data (id INT)", "INSERT INTO data VALUES (1), (2)"} {
		if _, err := vdb.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	vdb.Close()
	before, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}

	tg := open(t)
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE mine (id INT PRIMARY KEY, v INT)", "INSERT INTO mine VALUES (1, 1)",
		"CREATE TEMP TABLE scratch (id INT)", "CREATE VIEW mine_v AS SELECT * FROM mine", "PRAGMA foreign_keys = OFF",
		"PRAGMA table_info(mine)", "BEGIN", "UPDATE mine SET v = 2", "SAVEPOINT a", "RELEASE a", "COMMIT")
	copyTo := filepath.Join(dir, "copy.db")
	for _, q := range []string{
		"ATTACH '" + victim + "' AS v",
		"/**/ATTACH '" + victim + "' AS v",
		"DELETE FROM v.data",
		"VACUUM INTO '" + copyTo + "'",
		"PRAGMA writable_schema = ON",
		"PRAGMA journal_mode = DELETE",
		"PRAGMA busy_timeout = 100000",
		"SELECT load_extension('/tmp/evil.so')",
		"SELECT writefile('" + filepath.Join(dir, "w") + "', 'x')",
	} {
		if _, err := s.Exec(targettest.Ctx(t), q); err == nil {
			t.Errorf("%s: ran on a case session", q)
		}
	}
	after, err := os.ReadFile(victim)
	if err != nil || string(after) != string(before) {
		t.Errorf("victim.db changed (%v)", err)
	}
	for _, f := range []string{copyTo, filepath.Join(dir, "w")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was created", f)
		}
	}
}

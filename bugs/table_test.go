package bugs

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/txlab/txlab/target"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// matrixRuns are five targets' results: two PostgreSQL releases sharing
// rows (one status changed), MariaDB with a MySQL bug and a bug that could
// not run, a target that did not start and a URL that ran nothing.
func matrixRuns() []*TargetRun {
	entry := func(bug, dbms string) Entry { return Entry{Bug: bug, DBMS: dbms, Kind: "bug"} }
	lv := func(l target.Level, status, verdict, recorded string) LevelResult {
		return LevelResult{Level: l, Status: status, Verdict: verdict, Recorded: recorded, Changed: recorded != "" && recorded != status}
	}
	pg := func(spec, version string, ser LevelResult) *TargetRun {
		return &TargetRun{Spec: spec, Info: target.Info{DBMS: "postgres", Version: version}, Results: []Result{
			{Entry: entry("PG-SSI-ON-CONFLICT", "postgres"), Levels: []LevelResult{
				// Out of order: the table sorts levels weakest first.
				ser, lv(target.ReadCommitted, NotReproduced, "allowed", "")}},
			{Entry: entry("DOC-PG-RR-WRITE-SKEW", "postgres"), Levels: []LevelResult{
				lv(target.RepeatableRead, Reproduces, "none", Reproduces)}},
		}}
	}
	return []*TargetRun{
		pg("postgres@10", "10.23", lv(target.Serializable, Reproduces, "bug", Reproduces)),
		pg("postgres@18", "18.4", lv(target.Serializable, NotReproduced, "none", Reproduces)),
		{Spec: "mariadb", Info: target.Info{DBMS: "mariadb", Version: "10.11.19-MariaDB-0+deb12u1"}, Results: []Result{
			{Entry: entry("MYSQL-95049", "mysql"), Levels: []LevelResult{lv(target.RepeatableRead, Reproduces, "suspect", Reproduces)}},
			{Entry: entry("MDEV-26643", "mariadb"), Levels: []LevelResult{
				lv(target.ReadCommitted, Reproduces, "bug", Reproduces),
				{Level: target.Serializable, Status: Error, Error: "setup statement 1: boom", Recorded: NotReproduced, Changed: true}}},
		}},
		{Spec: "tidb", Err: errors.New("tidb: build failed\nsecond line")},
		{Spec: "mysql://root:xxxxx@127.0.0.1:3306/", Info: target.Info{DBMS: "mysql", Version: "8.0.36"}},
	}
}

// TestBugMatrix: the table of several targets against its golden file
// (go test ./bugs -run TestBugMatrix -update rewrites it).
func TestBugMatrix(t *testing.T) {
	var b bytes.Buffer
	WriteMatrix(&b, matrixRuns())
	golden := filepath.Join("testdata", "bugs-matrix.txt")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("table:\n%s\nwant (%s):\n%s", b.String(), golden, want)
	}
}

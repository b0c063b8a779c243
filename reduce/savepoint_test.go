package reduce

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// TestDropSavepoint: each candidate removes one SAVEPOINT with the
// ROLLBACK TO / RELEASE of it in its own transaction, up to the next
// SAVEPOINT of the same name, and nothing else.
func TestDropSavepoint(t *testing.T) {
	c, err := testcase.ParseFile(filepath.Join("testdata", "savepoints.txn"))
	if err != nil {
		t.Fatal(err)
	}
	r := &reducer{opt: Options{Dialect: sqlast.Postgres}}
	steps := func(d *testcase.Case) string {
		var out []string
		for _, s := range d.Steps {
			out = append(out, s.SQL)
		}
		return strings.Join(out, "; ")
	}
	want := []string{
		// T1's first pair: its SAVEPOINT and ROLLBACK TO.
		"BEGIN; UPDATE t SET v = 11 WHERE id = 1; BEGIN; SAVEPOINT a; SAVEPOINT a; UPDATE t SET v = 12 WHERE id = 2; RELEASE SAVEPOINT a; UPDATE t SET v = 13 WHERE id = 2; ROLLBACK TO SAVEPOINT a; COMMIT; COMMIT",
		// T1's second pair: SAVEPOINT and RELEASE.
		"BEGIN; SAVEPOINT a; UPDATE t SET v = 11 WHERE id = 1; BEGIN; SAVEPOINT a; ROLLBACK TO SAVEPOINT a; UPDATE t SET v = 12 WHERE id = 2; UPDATE t SET v = 13 WHERE id = 2; ROLLBACK TO SAVEPOINT a; COMMIT; COMMIT",
		// T2's pair.
		"BEGIN; SAVEPOINT a; UPDATE t SET v = 11 WHERE id = 1; BEGIN; ROLLBACK TO SAVEPOINT a; SAVEPOINT a; UPDATE t SET v = 12 WHERE id = 2; RELEASE SAVEPOINT a; UPDATE t SET v = 13 WHERE id = 2; COMMIT; COMMIT",
	}
	for i, w := range want {
		d := dropSavepoint(r, c, i)
		if d == nil || d == noMore {
			t.Fatalf("candidate %d: none", i)
		}
		if got := steps(d); got != w {
			t.Errorf("candidate %d:\n got %s\nwant %s", i, got, w)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("candidate %d: %v", i, err)
		}
	}
	if dropSavepoint(r, c, len(want)) != noMore {
		t.Error("a savepoint past the last one")
	}
	if len(c.Steps) != 13 {
		t.Errorf("a candidate changed the case it came from: %d steps", len(c.Steps))
	}
}

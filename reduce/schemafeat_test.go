package reduce

import (
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// TestDropSchemaFeature: the pass's candidates, in order, drop each index,
// drop a generated column with the statements that use it, and make a
// SERIAL key a plain column; a column a generated column reads stays.
func TestDropSchemaFeature(t *testing.T) {
	c, err := testcase.ParseString("c.txn", `CREATE TABLE t (k SERIAL PRIMARY KEY, a INT, g INT GENERATED ALWAYS AS (a + 1) STORED);
CREATE UNIQUE INDEX t_p ON t (a) WHERE a > 1;
CREATE INDEX t_g ON t (g);
INSERT INTO t (k, a) VALUES (1, 1), (2, 2);
1> BEGIN;
1> SELECT k FROM t WHERE g = 3;
1> UPDATE t SET a = 5 WHERE k = 1;
2> SELECT a FROM t;
1> COMMIT;
`)
	if err != nil {
		t.Fatal(err)
	}
	r := &reducer{opt: Options{Dialect: sqlast.Postgres}}
	wantSetups := [][]string{
		// 0: k is SERIAL → a plain INT
		{"CREATE TABLE t (k INT PRIMARY KEY, a INT, g INT GENERATED ALWAYS AS (a + 1) STORED)", c.Setup[1], c.Setup[2], c.Setup[3]},
		// 1: g goes, with its index and the SELECT that reads it
		{"CREATE TABLE t (k SERIAL PRIMARY KEY, a INT)", c.Setup[1], c.Setup[3]},
		// 2, 3: each index
		{c.Setup[0], c.Setup[2], c.Setup[3]},
		{c.Setup[0], c.Setup[1], c.Setup[3]},
	}
	wantSteps := []int{5, 4, 5, 5}
	for i, want := range wantSetups {
		got := dropSchemaFeature(r, c, i)
		if got == nil || got == noMore {
			t.Fatalf("candidate %d: none", i)
		}
		if !slices.Equal(got.Setup, want) || len(got.Steps) != wantSteps[i] {
			t.Errorf("candidate %d:\n%s\nwant setup:\n%s\nand %d steps", i, got, strings.Join(want, "\n"), wantSteps[i])
		}
	}
	if dropSchemaFeature(r, c, len(wantSetups)) != noMore {
		t.Error("a candidate past the last one")
	}
	// a feeds g: the columns pass keeps it.
	if got := dropColumn(r, c, 1); got != nil {
		t.Errorf("column a dropped although g reads it:\n%s", got)
	}
}

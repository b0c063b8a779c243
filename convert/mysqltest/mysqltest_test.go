package mysqltest_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/convert/mysqltest"
	"github.com/txlab/txlab/testcase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestSpecs imports the specs in testdata/ (written in the isolation
// tester's format, with its quoted names, blocking markers, session
// setups and teardowns, a spec without permutations, and refusals) and
// compares the cases with the golden .txn beside each (or the refusal's
// message). Each case must parse back to itself.
func TestSpecs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cases, err := mysqltest.Parse(filepath.Base(path), f)
			var b strings.Builder
			if err != nil {
				b.WriteString("error: " + err.Error() + "\n")
			}
			for i, c := range cases {
				if i > 0 {
					b.WriteString("\n-- ---- next case ----\n\n")
				}
				text := c.String()
				b.WriteString(text)
				back, err := testcase.ParseString(c.Name, text)
				if err != nil || !back.Equal(c) {
					t.Errorf("%s: the case does not parse back to itself (%v):\n%s", c.Name, err, text)
				}
			}
			golden := strings.TrimSuffix(path, ".test") + ".txn"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./convert/mysqltest -update writes it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s: got\n%s\nwant\n%s", path, b.String(), want)
			}
		})
	}
}

// TestRoundTrip writes cases as mysql-test files, with the statements
// that waited sent and reaped, and reads them back: the same setup, the
// same statements on the same connections in the same order, each
// connection at the same level (comments and the dbms header are not
// compared, nor how the levels are spelled).
func TestRoundTrip(t *testing.T) {
	for _, src := range roundTripCases {
		c, err := testcase.ParseString("case", src)
		if err != nil {
			t.Fatal(err)
		}
		// Every other statement of connection 2 "waited", and one failed.
		o := mysqltest.Outcomes{Blocked: map[int]bool{}, Errors: map[int]string{}}
		for i, s := range c.Steps {
			if s.Conn == 2 && i%2 == 1 {
				o.Blocked[i] = true
			}
			if i == len(c.Steps)/2 {
				o.Errors[i] = "ER_LOCK_DEADLOCK"
			}
		}
		text := mysqltest.Write(c, o)
		back, err := mysqltest.Parse("case.test", strings.NewReader(text))
		if err != nil {
			t.Fatalf("the written file does not read back: %v\n%s", err, text)
		}
		if len(back) != 1 {
			t.Fatalf("the written file reads back as %d cases:\n%s", len(back), text)
		}
		if msg := SameCase(c, back[0]); msg != "" {
			t.Errorf("%s\nfile:\n%s\nread back:\n%s", msg, text, back[0])
		}
	}
}

var roundTripCases = []string{
	`-- isolation: read-committed
-- MDEV-30835's shape
CREATE TABLE t (c1 DOUBLE PRECISION);
INSERT INTO t VALUES (1.0);
1> BEGIN;
1> INSERT INTO t VALUES (2.0);
2> BEGIN;
2> UPDATE t SET c1 = 3.0 WHERE c1 = 2.0;
1> COMMIT;
2> COMMIT;
`,
	`-- isolation.1: serializable
-- isolation.3: repeatable-read
CREATE TABLE a (k INT PRIMARY KEY, v TEXT);
CREATE VIEW av AS SELECT k FROM a;
INSERT INTO a VALUES (1, 'x;y');
3> BEGIN;
3> SELECT *
  FROM a
  WHERE k = 1;
1> BEGIN;
1> UPDATE a SET v = 'it''s' WHERE k = 1;
3> SELECT * FROM av;
1> COMMIT;
3> COMMIT;
`,
	`1> SELECT 1;
`,
	`-- isolation: repeatable-read
CREATE TABLE t (k INT);
2> BEGIN;
2> INSERT INTO t VALUES (1);
2> INSERT INTO t VALUES (2);
2> INSERT INTO t VALUES (3);
2> INSERT INTO t VALUES (4);
2> INSERT INTO t VALUES (5);
2> INSERT INTO t VALUES (6);
2> INSERT INTO t VALUES (7);
2> INSERT INTO t VALUES (8);
2> INSERT INTO t VALUES (9);
2> INSERT INTO t VALUES (10);
2> INSERT INTO t VALUES (11);
2> INSERT INTO t VALUES (12);
2> INSERT INTO t VALUES (13);
2> INSERT INTO t VALUES (14);
2> INSERT INTO t VALUES (15);
2> INSERT INTO t VALUES (16);
2> INSERT INTO t VALUES (17);
2> INSERT INTO t VALUES (18);
2> INSERT INTO t VALUES (19);
2> INSERT INTO t VALUES (20);
2> INSERT INTO t VALUES (21);
2> INSERT INTO t VALUES (22);
2> INSERT INTO t VALUES (23);
2> INSERT INTO t VALUES (24);
2> INSERT INTO t VALUES (25);
2> INSERT INTO t VALUES (26);
2> INSERT INTO t VALUES (27);
2> COMMIT;
`,
}

// SameCase says how two cases differ in what they run ("" when they run
// the same): setup, each step's connection and statement, and each
// connection's level.
func SameCase(a, b *testcase.Case) string {
	if strings.Join(a.Setup, ";\n") != strings.Join(b.Setup, ";\n") {
		return "setup differs: " + strings.Join(a.Setup, "; ") + " | " + strings.Join(b.Setup, "; ")
	}
	if len(a.Steps) != len(b.Steps) {
		return "step count differs"
	}
	for i := range a.Steps {
		if a.Steps[i].Conn != b.Steps[i].Conn || a.Steps[i].SQL != b.Steps[i].SQL {
			return "step " + a.Steps[i].SQL + " differs from " + b.Steps[i].SQL
		}
	}
	for _, n := range a.Conns() {
		if a.LevelOf(n) != b.LevelOf(n) {
			return "the level of a connection differs: " + string(a.LevelOf(n)) + " | " + string(b.LevelOf(n))
		}
	}
	return ""
}

// TestManyConnectionsAndScenarios: a connection keeps its level from
// scenario to scenario, and a file of 3,000 connections that set one and
// 15,000 scenarios (870 KB) converts in about a second (setting every
// connection's level at the start of every scenario took 70 s); a
// scenario sets the level of the connections it runs, before their first
// statement.
func TestManyConnectionsAndScenarios(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE t (a INT);\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "connect (c%d,localhost,root,,);\nSET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;\nSELECT 1;\n", i)
	}
	for j := range 15000 {
		fmt.Fprintf(&b, "CREATE TABLE t%d (a INT);\nSELECT %d;\n", j, j)
	}
	b.WriteString("connection c7;\nCREATE TABLE u (a INT);\nSELECT 2;\n")
	type result struct {
		cases []*testcase.Case
		err   error
	}
	done := make(chan result, 1)
	go func() {
		cases, err := mysqltest.Parse("many.test", strings.NewReader(b.String()))
		done <- result{cases, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || len(r.cases) != 15002 {
			t.Fatalf("%d cases, %v; want 15002", len(r.cases), r.err)
		}
		last := r.cases[len(r.cases)-1]
		if len(last.Steps) != 1 || last.Steps[0].SQL != "SELECT 2" || last.Isolation != "read-committed" {
			t.Errorf("the last scenario, on c7: %+v; want SELECT 2 at read-committed", last)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("not converted in 20 s")
	}
}

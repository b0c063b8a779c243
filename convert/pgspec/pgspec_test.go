package pgspec_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/testcase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestSpecs imports the specs in testdata/ (written in the isolation
// tester's format, with its quoted names, blocking markers, session
// setups and teardowns, a spec without permutations, and refusals) and
// compares the cases with the golden .txn beside each (or the refusal's
// message). Each case must parse back to itself.
func TestSpecs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.spec"))
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
			cases, err := pgspec.Parse(filepath.Base(path), f)
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
			golden := strings.TrimSuffix(path, ".spec") + ".txn"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./convert/pgspec -update writes it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s: got\n%s\nwant\n%s", path, b.String(), want)
			}
		})
	}
}

// TestRoundTrip writes cases as specs and reads them back: the same setup,
// the same statements on the same connections in the same order, each
// connection at the same level. Comments, the dbms header and the way the
// levels are spelled (one header or isolation.N) are not compared: the
// spec says levels per session.
func TestRoundTrip(t *testing.T) {
	for _, src := range roundTripCases {
		c, err := testcase.ParseString("case", src)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := pgspec.Write(c)
		if err != nil {
			t.Fatalf("Write: %v\n%s", err, src)
		}
		back, err := pgspec.Parse("case.spec", strings.NewReader(spec))
		if err != nil {
			t.Fatalf("the written spec does not read back: %v\n%s", err, spec)
		}
		if len(back) != 1 {
			t.Fatalf("the written spec reads back as %d cases:\n%s", len(back), spec)
		}
		if msg := SameCase(c, back[0]); msg != "" {
			t.Errorf("%s\nspec:\n%s\nread back:\n%s", msg, spec, back[0])
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

// TestWriteRefuses: a statement with a } cannot be a block's text.
func TestWriteRefuses(t *testing.T) {
	c, err := testcase.ParseString("case", "1> SELECT '}';\n")
	if err != nil {
		t.Fatal(err)
	}
	if spec, err := pgspec.Write(c); err == nil {
		t.Errorf("Write accepted a statement holding }:\n%s", spec)
	}
}

// TestInterleavingsBound: a spec without permutations whose steps
// interleave more than MaxCases ways is refused, not expanded.
func TestInterleavingsBound(t *testing.T) {
	var b strings.Builder
	for _, s := range []string{"a", "b", "c"} {
		b.WriteString("session " + s + "\n")
		for i := 0; i < 4; i++ {
			b.WriteString("step " + s + string(rune('0'+i)) + " { SELECT 1; }\n")
		}
	}
	if cases, err := pgspec.Parse("big.spec", strings.NewReader(b.String())); err == nil {
		t.Errorf("got %d cases, want a refusal (12 steps of 3 sessions interleave 34650 ways)", len(cases))
	}
}

// TestPermutationBound: a permutation may name one step any number of
// times; a case it makes past testcase's bounds is refused as it grows
// (red team 4: a 100 KB step named 250,000 times took 17 GB), and one
// within them converts.
func TestPermutationBound(t *testing.T) {
	spec := func(body string, n int) string {
		return "session a\nstep s1 { " + body + "; }\npermutation" + strings.Repeat(" s1", n) + "\n"
	}
	_, err := pgspec.Parse("amp.spec", strings.NewReader(spec("SELECT '"+strings.Repeat("x", 100_000)+"'", 2_000)))
	if err == nil || !strings.Contains(err.Error(), "the most a case may hold") {
		t.Errorf("2,000 × 100 KB: %v, want a refusal", err)
	}
	_, err = pgspec.Parse("many.spec", strings.NewReader(spec("SELECT 1", 20_000)))
	if err == nil || !strings.Contains(err.Error(), "the most a case may hold") {
		t.Errorf("20,000 statements: %v, want a refusal", err)
	}
	cases, err := pgspec.Parse("ok.spec", strings.NewReader(spec("SELECT 1", 50)))
	if err != nil || len(cases) != 1 || len(cases[0].Steps) != 50 {
		t.Errorf("50 statements: %v, %v", cases, err)
	}
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

// sessions is a spec of sessions s1, s2, … with the given numbers of
// steps, and perms listed permutations (the first step of each session,
// in order).
func sessions(perms int, steps ...int) string {
	var b strings.Builder
	var firsts []string
	for s, n := range steps {
		fmt.Fprintf(&b, "session s%d\n", s+1)
		for i := range n {
			fmt.Fprintf(&b, "step s%d_%d { SELECT %d; }\n", s+1, i, i)
		}
		firsts = append(firsts, fmt.Sprintf("s%d_0", s+1))
	}
	for range perms {
		b.WriteString("permutation " + strings.Join(firsts, " ") + "\n")
	}
	return b.String()
}

// TestCount: the cases a spec makes, counted without making them: its
// permutations, or its steps' interleavings (the multinomial coefficient),
// math.MaxInt64 for more than that. PostgreSQL's receipt-report.spec
// (steps 2, 2 and 3) interleaves 210 ways, and converts; the largest of
// its specs lists about 1,430 permutations.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want int64
	}{
		{sessions(1430, 3, 4, 3, 1), 1430},
		{sessions(0, 2, 2), 6},
		{sessions(0, 2, 2, 3), 210},
		{sessions(0, 4, 4, 4), 34650},
		{sessions(0, 1000), 1},
		{sessions(0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 2432902008176640000}, // 20!
		{sessions(0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), math.MaxInt64},    // 21!
		{sessions(0, 5000, 5000), math.MaxInt64},
	} {
		sp, err := pgspec.ParseSpec("count.spec", strings.NewReader(tc.spec))
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Count(); got != tc.want {
			t.Errorf("%s: Count %d, want %d", sp.CountText(), got, tc.want)
		}
	}
	cases, err := pgspec.Parse("receipt-report.spec", strings.NewReader(sessions(0, 2, 2, 3)))
	if err != nil || len(cases) != 210 {
		t.Errorf("receipt-report's shape: %d cases, %v; want 210", len(cases), err)
	}
	cases, err = pgspec.Parse("prepared-transactions.spec", strings.NewReader(sessions(1430, 3, 4, 3, 1)))
	if err != nil || len(cases) != 1430 {
		t.Errorf("prepared-transactions' shape: %d cases, %v; want 1430", len(cases), err)
	}
}

// TestEachIsLazy: Each makes a spec's interleavings one at a time, so the
// first of 20! comes at once, and a cancelled context stops it before the
// next (walking them all first took forever and all the memory there is).
func TestEachIsLazy(t *testing.T) {
	sp, err := pgspec.ParseSpec("fact.spec", strings.NewReader(sessions(0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- sp.Each(ctx, "fact.spec", func(c *testcase.Case, k, n int) error {
			got = append(got, c.Name)
			if n != 2432902008176640000 {
				t.Errorf("case %d of %d, want of 20!", k, n)
			}
			if k == 2 {
				cancel()
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || strings.Join(got, " ") != "fact.spec#1 fact.spec#2 fact.spec#3" {
			t.Errorf("%v after %v; want context.Canceled after the first 3", err, got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Each did not stop 20 s after its context was cancelled")
	}
}

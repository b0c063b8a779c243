package isorel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/oracle/isorel/infer"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestStressCutouts: a finding's candidate cases start from the state of
// the last full read before it, then add the overlapping transactions that
// read did not see, then fall back to the initial state, each first in
// the order statements started and then with writes where they ended; and
// the snapshot setup runs.
func TestStressCutouts(t *testing.T) {
	h, err := history.ReadFile("testdata/stress-round.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f := &infer.Finding{Class: "write-skew", Txns: []int64{5, 4}}
	cands := stressCutouts(h, f, sqlast.SQLite)
	ids := func(k cutout) []int64 {
		var out []int64
		for _, tx := range k.txns {
			out = append(out, tx.ID)
		}
		return out
	}
	snapshot := []string{"CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t (k, v) VALUES ('1', '5'), ('2', NULL)"}
	initial := []string{"CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t (k, v) VALUES (1, 0), (2, 0)"}
	want := []struct {
		setup  []string
		from   string
		txns   []int64
		others int
		atEnd  bool
	}{
		{snapshot, "the state the full read T2 saw", []int64{4, 5}, 0, false},
		{snapshot, "the state the full read T2 saw", []int64{4, 5}, 0, true},
		{snapshot, "the state the full read T2 saw", []int64{7, 4, 5}, 1, false},
		{snapshot, "the state the full read T2 saw", []int64{7, 4, 5}, 1, true},
		{initial, "the round's initial state", []int64{4, 5}, 0, false},
		{initial, "the round's initial state", []int64{4, 5}, 0, true},
	}
	if len(cands) != len(want) {
		t.Fatalf("%d candidates, want %d", len(cands), len(want))
	}
	for i, w := range want {
		k := cands[i]
		if !slices.Equal(k.setup, w.setup) || k.from != w.from || !slices.Equal(ids(k), w.txns) || k.others != w.others || k.atEnd != w.atEnd {
			t.Errorf("candidate %d: setup %q from %q txns %v others %d at end %v; want %q %q %v %d %v", i, k.setup, k.from, ids(k), k.others, k.atEnd, w.setup, w.from, w.txns, w.others, w.atEnd)
		}
	}

	// A finding that involves a full read keeps it in every candidate.
	withRead := stressCutouts(h, &infer.Finding{Class: "G-single", Txns: []int64{4, 8}}, sqlast.SQLite)
	if len(withRead) != 6 || !slices.Equal(ids(withRead[0]), []int64{4, 8}) || !slices.Equal(ids(withRead[2]), []int64{7, 4, 5, 8}) || withRead[2].others != 2 {
		for i, k := range withRead {
			t.Errorf("finding with a full read, candidate %d: txns %v others %d", i, ids(k), k.others)
		}
	}

	// The window case: one connection per session, statements in the order
	// they started, the failed transaction rolled back.
	c, names := cands[2].build("serializable", 7)
	if got := strings.Join(names, ", "); got != "T7 on 1>, T4 on 2>, T5 on 3>" {
		t.Errorf("names %q", got)
	}
	var steps []string
	for _, s := range c.Steps {
		steps = append(steps, fmt.Sprintf("%d> %s", s.Conn, s.SQL))
	}
	wantSteps := []string{
		"1> BEGIN", "1> UPDATE t SET v = 9 WHERE k = 1", "1> COMMIT",
		"2> BEGIN", "2> SELECT v FROM t WHERE k = 2",
		"3> BEGIN", "3> SELECT v FROM t WHERE k = 1",
		"2> UPDATE t SET v = 1 WHERE k = 1", "3> UPDATE t SET v = 1 WHERE k = 2",
		"2> COMMIT", "3> ROLLBACK",
	}
	if !slices.Equal(steps, wantSteps) {
		t.Errorf("steps\n%s\nwant\n%s", strings.Join(steps, "\n"), strings.Join(wantSteps, "\n"))
	}
	// A write that waited in the run (T4's UPDATE, from 50 to 62, past
	// T5's end) goes where it ended in the at-end candidate only.
	waited := cands[1]
	waited.txns = slices.Clone(waited.txns)
	t4 := *waited.txns[0]
	t4.Stmts = slices.Clone(t4.Stmts)
	t4.Stmts[1].End, t4.End = 62, 63
	waited.txns[0] = &t4
	for _, atEnd := range []bool{false, true} {
		waited.atEnd = atEnd
		wc, _ := waited.build("read-committed", 7)
		var got []string
		for _, s := range wc.Steps {
			got = append(got, fmt.Sprintf("%d> %s", s.Conn, s.SQL))
		}
		want := []string{"1> BEGIN", "1> SELECT v FROM t WHERE k = 2", "2> BEGIN", "2> SELECT v FROM t WHERE k = 1",
			"1> UPDATE t SET v = 1 WHERE k = 1", "2> UPDATE t SET v = 1 WHERE k = 2", "2> ROLLBACK", "1> COMMIT"}
		if atEnd {
			want = []string{"1> BEGIN", "1> SELECT v FROM t WHERE k = 2", "2> BEGIN", "2> SELECT v FROM t WHERE k = 1",
				"2> UPDATE t SET v = 1 WHERE k = 2", "2> ROLLBACK", "1> UPDATE t SET v = 1 WHERE k = 1", "1> COMMIT"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("at end %v: steps\n%s\nwant\n%s", atEnd, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if back, err := testcase.ParseString("stress", c.String()); err != nil || !back.Equal(c) {
		t.Errorf("the case does not read back (%v):\n%s", err, c)
	}

	// The snapshot setup runs, and the case starts from the read's rows.
	tg := connecttest.Target(t, "sqlite")
	res, err := executor.Run(context.Background(), tg, c, executor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// T2 saw (2, NULL), where the initial state had (2, 0).
	if got := fmt.Sprint(res.Final["t"]); got != "[[1 1] [2 NULL]]" {
		t.Errorf("final state %s, want [[1 1] [2 NULL]]", got)
	}
}

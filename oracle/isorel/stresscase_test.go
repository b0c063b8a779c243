package isorel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/isorel/infer"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestStressCutouts: a finding's candidate cases start from the state of
// the last full read before it and the writes of the transactions that
// committed after it and before the finding, then add the overlapping
// transactions that read did not see, then the same without those writes,
// then fall back to the initial state, each first in the order statements
// started and then with writes where they ended; and the snapshot setup
// runs.
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
	// The snapshot's rows, then T9's write that committed before the
	// finding began (its SELECT and its failed UPDATE left out).
	snapshot := []string{"CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t (k, v) VALUES ('1', '5'), ('2', NULL)", "UPDATE t SET v = 7 WHERE k = 2"}
	from := "the state the full read T2 saw, then the writes of the 1 transactions that committed after it and before the finding began (T9), one transaction after the other"
	initial := []string{"CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t (k, v) VALUES (1, 0), (2, 0)"}
	want := []struct {
		setup  []string
		from   string
		txns   []int64
		others int
		atEnd  bool
	}{
		{snapshot, from, []int64{4, 5}, 0, false},
		{snapshot, from, []int64{4, 5}, 0, true},
		{snapshot, from, []int64{7, 4, 5}, 1, false},
		{snapshot, from, []int64{7, 4, 5}, 1, true},
		{snapshot[:2], "the state the full read T2 saw", []int64{4, 5}, 0, false},
		{snapshot[:2], "the state the full read T2 saw", []int64{4, 5}, 0, true},
		{snapshot[:2], "the state the full read T2 saw", []int64{9, 7, 4, 5}, 2, false},
		{snapshot[:2], "the state the full read T2 saw", []int64{9, 7, 4, 5}, 2, true},
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
	if len(withRead) != 10 || !slices.Equal(ids(withRead[0]), []int64{4, 8}) || !slices.Equal(ids(withRead[2]), []int64{7, 4, 5, 8}) || withRead[2].others != 2 {
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
		"1> BEGIN", "1> UPDATE t SET v = 9 WHERE k = 1",
		"2> BEGIN", "2> SELECT v FROM t WHERE k = 2", "1> COMMIT",
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
	// A read of a version a transaction wrote puts its COMMIT before the
	// read, even when the run saw the COMMIT return later (at 70, after
	// the SELECT that started at 65 had seen T1's write).
	w := &history.Txn{ID: 1, Session: 1, Status: history.OK, Start: 10, End: 70, Stmts: []history.Stmt{{SQL: "UPDATE t SET v = 1", Kind: "UPDATE", Start: 11, End: 12}}}
	r := &history.Txn{ID: 2, Session: 2, Status: history.OK, Start: 20, End: 80, Stmts: []history.Stmt{
		{SQL: "SELECT v FROM t", Kind: "SELECT", Start: 21, End: 22, Reads: []history.Version{{Row: "r1", WList: "T0"}}},
		{SQL: "SELECT v FROM t", Kind: "SELECT", Start: 65, End: 66, Reads: []history.Version{{Row: "r1", WList: "T0,T1"}}}}}
	rc, _ := cutout{txns: []*history.Txn{w, r}}.build("read-committed", 7)
	var rcSteps []string
	for _, s := range rc.Steps {
		rcSteps = append(rcSteps, fmt.Sprintf("%d> %s", s.Conn, s.SQL))
	}
	if want := []string{"1> BEGIN", "1> UPDATE t SET v = 1", "2> BEGIN", "2> SELECT v FROM t", "1> COMMIT", "2> SELECT v FROM t", "2> COMMIT"}; !slices.Equal(rcSteps, want) {
		t.Errorf("commit seen early: steps\n%s\nwant\n%s", strings.Join(rcSteps, "\n"), strings.Join(want, "\n"))
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
	// T2 saw (2, NULL), where the initial state had (2, 0); T9 then set
	// 7. T7's 9 stays: T4's snapshot predates T7's commit, so SQLite
	// refuses T4's write (SQLITE_BUSY_SNAPSHOT).
	if got := fmt.Sprint(res.Final["t"]); got != "[[1 9] [2 7]]" {
		t.Errorf("final state %s, want [[1 9] [2 7]]", got)
	}
}

// TestStressRounds runs two stress rounds on PostgreSQL at read committed
// judged as serializable (cycles by the hundred): findings come with
// cut-outs, most of which reproduce, and the replays give back their
// connections (they used to keep them until the server refused clients).
func TestStressRounds(t *testing.T) {
	ctx := context.Background()
	tg := connecttest.Target(t, "postgres")
	clients := func() int {
		s, err := tg.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Exec(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("counting clients: %v", err)
		}
		n, _ := strconv.Atoi(res.Rows[0][0].S)
		return n
	}
	dir := t.TempDir()
	w := &report.Writer{Dir: dir}
	o := &StressOracle{Options: Options{Model: semantics.Model(target.Serializable), Seen: w.Seen}, RoundLength: 3 * time.Second}
	var after []int
	for round := range 2 {
		res, err := o.Round(ctx, tg, oracle.RoundSpec{Index: round, Seed: uint64(11 + round), Level: target.ReadCommitted})
		if err == nil {
			err = w.Save(res.Findings, res.Evidence)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) == 0 {
			t.Fatalf("round %d: no finding in %d transactions", round, res.Transactions)
		}
		after = append(after, clients())
	}
	// The target's own sessions and the replays' one schema: 7 when
	// measured; 50 to 60 when every replay kept its connections.
	for i, n := range after {
		if n > 16 {
			t.Errorf("%d clients connected after round %d: the replays keep connections", n, i+1)
		}
	}
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "case.txn"))
	reproduced := 0
	for _, c := range cases {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "Replayed when found: it reproduces") {
			reproduced++
		}
	}
	t.Logf("%d of %d cut-outs reproduce; clients %v", reproduced, len(cases), after)
	if len(cases) == 0 || 2*reproduced < len(cases) {
		t.Errorf("%d of %d cut-outs reproduce, want at least half", reproduced, len(cases))
	}
}

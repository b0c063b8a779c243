package isorel

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/oracle/isorel/infer"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// A stress finding's case is cut out of the round: a setup, then some of
// the round's transactions, one connection per session of the run, with
// BEGIN, their statements and COMMIT (ROLLBACK for a transaction that
// failed) in the order their statements started in the run — or, in a
// second candidate of each, with every write placed where it ended: a
// write that waited for a lock in the run (often one a transaction left
// out of the case held) took effect when the wait was over, after writes
// that started later. Which setup, which transactions and which order make
// the cycle happen again is found by replaying candidates, smallest first.

// maxWindow bounds the transactions of the largest candidate, and
// maxReplays the replays spent on one finding (candidates and reduction).
const (
	maxWindow  = 40
	maxReplays = 24
)

// cutout is one candidate case: a setup and the transactions it runs.
type cutout struct {
	setup  []string
	from   string // where the setup's state comes from, for the header
	txns   []*history.Txn
	others int // transactions beyond the finding's own
	// atEnd places writes (and locking reads) where they ended in the
	// run, not where they started.
	atEnd bool
}

// stressCutouts returns the candidate cases of finding f, smallest and most
// likely first:
//   - the finding's transactions, from the state the last full read before
//     them saw (the round's other transactions had changed the rows);
//   - the same with every transaction of the round that overlapped them and
//     whose writes that read did not see (locks and timing matter too);
//   - the finding's transactions from the round's initial state.
func stressCutouts(h *history.History, f *infer.Finding, d sqlast.Dialect) []cutout {
	involved := map[int64]bool{}
	for _, id := range f.Txns {
		involved[id] = true
	}
	var initTxn *history.Txn
	var own []*history.Txn
	first, last := int64(-1), int64(0)
	for i := range h.Txns {
		t := &h.Txns[i]
		switch {
		case t.Init:
			initTxn = t
		case involved[t.ID]:
			own = append(own, t)
			if first < 0 || t.Start < first {
				first = t.Start
			}
			last = max(last, t.Start, t.End)
		}
	}
	var initSetup []string
	if initTxn != nil {
		for _, s := range initTxn.Stmts {
			initSetup = append(initSetup, s.SQL)
		}
	}
	byStart(own)
	initial := cutout{setup: initSetup, from: "the round's initial state", txns: own}

	// The window holds the transactions that ran up to the finding's end
	// and are not part of the starting state: all of them from the initial
	// state (when no full read came before the finding), or those whose
	// writes the snapshot did not see and that were not over before it.
	start := initial
	inState := func(*history.Txn) bool { return false }
	if snap := lastSnapshot(h, first); snap != nil {
		if setup, ok := snapshotSetup(initTxn, snap, d); ok {
			start = cutout{setup: setup, from: fmt.Sprintf("the state the full read T%d saw", snap.ID), txns: own}
			seen := snapshotWriters(snap)
			inState = func(t *history.Txn) bool { return t.End > 0 && t.End < snap.Start || seen[t.ID] }
		}
	}
	var window []*history.Txn
	for i := range h.Txns {
		t := &h.Txns[i]
		// The finding's own transactions always belong, full reads too.
		if involved[t.ID] || !t.Init && !isFullRead(t) && t.Start <= last && !inState(t) {
			window = append(window, t)
		}
	}
	out := []cutout{start}
	if len(window) > len(own) && len(window) <= maxWindow {
		w := start
		w.txns, w.others = window, len(window)-len(own)
		out = append(out, w)
	}
	if start.from != initial.from {
		out = append(out, initial)
	}
	both := make([]cutout, 0, 2*len(out))
	for _, k := range out {
		e := k
		e.atEnd = true
		both = append(both, k, e)
	}
	return both
}

// isFullRead reports whether t is one of the run's full reads of every
// table.
func isFullRead(t *history.Txn) bool {
	if len(t.Stmts) == 0 {
		return false
	}
	for _, s := range t.Stmts {
		if s.Table == "" {
			return false
		}
	}
	return true
}

// lastSnapshot is the committed full read that ended last before before.
func lastSnapshot(h *history.History, before int64) *history.Txn {
	var snap *history.Txn
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Init || t.Status != history.OK || !isFullRead(t) || t.End == 0 || t.End >= before {
			continue
		}
		if snap == nil || t.End > snap.End {
			snap = t
		}
	}
	return snap
}

// snapshotWriters are the transactions whose writes a full read saw.
func snapshotWriters(snap *history.Txn) map[int64]bool {
	seen := map[int64]bool{}
	var ids []int64
	for _, s := range snap.Stmts {
		for _, v := range s.Reads {
			ids, _ = history.AppendWList(ids[:0], v.WList)
			for _, id := range ids {
				seen[id] = true
			}
		}
	}
	return seen
}

// snapshotSetup is the round's setup without its INSERTs, then one INSERT
// per table of the rows the full read saw. Values are written as strings,
// which every dialect converts to the column's type.
func snapshotSetup(initTxn *history.Txn, snap *history.Txn, d sqlast.Dialect) ([]string, bool) {
	if initTxn == nil {
		return nil, false
	}
	var setup []string
	for _, s := range initTxn.Stmts {
		if s.Kind != "INSERT" {
			setup = append(setup, s.SQL)
		}
	}
	for _, s := range snap.Stmts {
		if len(s.Columns) == 0 {
			return nil, false // an older history: no values kept
		}
		if len(s.Rows) == 0 {
			continue
		}
		ins := &sqlast.Insert{Table: s.Table, Columns: s.Columns}
		for _, row := range s.Rows {
			vals := make([]sqlast.Expr, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = &sqlast.Literal{Kind: sqlast.LitNull}
				} else {
					vals[i] = &sqlast.Literal{Kind: sqlast.LitString, Text: *v}
				}
			}
			ins.Values = append(ins.Values, vals)
		}
		setup = append(setup, sqlast.Format(d, ins))
	}
	return setup, true
}

func byStart(txns []*history.Txn) {
	slices.SortStableFunc(txns, func(a, b *history.Txn) int { return cmp.Compare(a.Start, b.Start) })
}

// build writes the candidate as a case; names lists its transactions.
func (k cutout) build(level target.Level, seed uint64) (*testcase.Case, []string) {
	c := &testcase.Case{Name: "stress", Isolation: level, Seed: fmt.Sprint(seed), Setup: k.setup}
	type event struct {
		at   int64
		step testcase.Step
	}
	var evs []event
	names := make([]string, len(k.txns))
	connOf := map[int]int{} // one connection per session: session order is part of some cycles
	for i, t := range k.txns {
		conn, ok := connOf[t.Session]
		if !ok {
			conn = len(connOf) + 1
			connOf[t.Session] = conn
		}
		names[i] = fmt.Sprintf("T%d on %d>", t.ID, conn)
		at := t.Start
		evs = append(evs, event{at, testcase.Step{Conn: conn, SQL: "BEGIN"}})
		for _, s := range t.Stmts {
			when := s.Start
			if k.atEnd && s.End > 0 && (s.Kind != "SELECT" || s.Locking) {
				when = s.End
			}
			at = max(at, when)
			evs = append(evs, event{at, testcase.Step{Conn: conn, SQL: s.SQL}})
		}
		end := "COMMIT"
		if t.Status == history.Fail {
			end = "ROLLBACK"
		}
		evs = append(evs, event{max(at, t.End), testcase.Step{Conn: conn, SQL: end}})
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	for _, e := range evs {
		c.Steps = append(c.Steps, e.step)
	}
	return c, names
}

// without returns k minus its i-th transaction.
func (k cutout) without(i int) cutout {
	k.txns = slices.Delete(slices.Clone(k.txns), i, i+1)
	k.others--
	return k
}

// replayable builds the candidate cases of a stress finding and replays
// them at once through the interleaved oracle: the first that reproduces
// the finding's class is reduced (transactions beyond the finding's own
// are dropped while it still reproduces) and kept; when none does, the
// smallest is kept. The header and the report say which happened.
func (o *StressOracle) replayable(ctx context.Context, t target.Target, h *history.History, f *infer.Finding, level target.Level, seed uint64) (*testcase.Case, string, error) {
	cands := stressCutouts(h, f, t.Info().Dialect)
	replays := 0
	try := func(k cutout) (string, bool, error) {
		replays++
		c, _ := k.build(level, seed)
		return o.reproduces(ctx, t, c, f.Class)
	}
	kept, verdict, found := cands[0], "", false
	for _, k := range cands {
		v, ok, err := try(k)
		if err != nil {
			return nil, "", err
		}
		if verdict == "" {
			verdict = v
		}
		if ok {
			kept, verdict, found = k, v, true
			break
		}
	}
	if found {
		// Drop the other transactions one at a time, latest first, while
		// the cycle still happens.
		for i := len(kept.txns) - 1; i >= 0 && kept.others > 0 && replays < maxReplays; i-- {
			if slices.Contains(f.Txns, kept.txns[i].ID) {
				continue
			}
			smaller := kept.without(i)
			_, ok, err := try(smaller)
			if err != nil {
				return nil, "", err
			}
			if ok {
				kept = smaller
			}
		}
	} else if len(cands) > 1 {
		verdict = fmt.Sprintf("%s did not reproduce in any of %d cut-outs: the cycle needs the timing of the run", f.Class, len(cands))
	}

	c, names := kept.build(level, seed)
	mine := names
	if kept.others > 0 {
		mine = nil
		for i, tx := range kept.txns {
			if slices.Contains(f.Txns, tx.ID) {
				mine = append(mine, names[i])
			}
		}
	}
	order := "in the order their statements started"
	if kept.atEnd {
		order = "in the order their statements started, each write where it ended (after the lock waits of the run)"
	}
	c.Comments = []string{
		fmt.Sprintf("isorel %s: %s (%s)", f.Class, f.Verdict, f.Rule.Name),
		fmt.Sprintf("From the stress round of the seed header: %s, %s.", strings.Join(mine, ", "), order),
		fmt.Sprintf("The setup is %s.", kept.from),
	}
	if kept.others > 0 {
		var others []string
		for i, tx := range kept.txns {
			if !slices.Contains(f.Txns, tx.ID) {
				others = append(others, names[i])
			}
		}
		c.Comments = append(c.Comments, fmt.Sprintf("It also runs %d other transactions of the round that overlapped them: %s.", kept.others, strings.Join(others, ", ")))
	}
	c.Comments = append(c.Comments, "Replayed when found: "+verdict+".", "Replay with: "+replayCommand)
	return c, "case.txn is the finding's transactions cut out of the stress run, from " + kept.from + "; replayed when found, " + verdict + ".\n" +
		"Replay it with: " + replayCommand, nil
}

// reproduces replays c through the interleaved oracle and reports whether
// it finds class, with a verdict sentence either way.
func (o *StressOracle) reproduces(ctx context.Context, t target.Target, c *testcase.Case, class string) (string, bool, error) {
	replay := &Oracle{Options: Options{Settings: o.Settings, Model: o.Model, Strict: o.Strict}}
	j, err := replay.Check(ctx, t, c, nil, executor.Options{})
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return fmt.Sprintf("it did not run: %v", err), false, nil
	case j.Execution != nil && j.Execution.Hang:
		return "it hung", false, nil
	}
	for _, rf := range j.Findings {
		if rf.Kind == class {
			return fmt.Sprintf("it reproduces %s (%s)", rf.Kind, rf.Verdict), true, nil
		}
	}
	return fmt.Sprintf("%s did not reproduce: the cycle needs the timing or the rows of the run", class), false, nil
}

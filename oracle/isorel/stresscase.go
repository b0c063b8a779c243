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
//     them saw (the round's other transactions had changed the rows), with
//     the writes of the transactions that read did not see but that
//     committed before the finding's first began added to the setup, one
//     transaction after the other in commit order: the finding started
//     from their rows, and they were over before it;
//   - the same with every other transaction of the round that overlapped
//     them (locks and timing matter too);
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

	// With each starting state, the window holds the transactions that ran
	// up to the finding's end and are not part of that state: all of them
	// from the initial state, or those whose writes the snapshot did not
	// see and that were not over before it.
	withWindow := func(start cutout, inState func(*history.Txn) bool) []cutout {
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
		return out
	}
	var out []cutout
	if snap := lastSnapshot(h, first); snap != nil {
		if setup, ok := snapshotSetup(initTxn, snap, d); ok {
			plain := cutout{setup: setup, from: fmt.Sprintf("the state the full read T%d saw", snap.ID), txns: own}
			seen := snapshotWriters(snap)
			read := func(t *history.Txn) bool { return t.End > 0 && t.End < snap.Start || seen[t.ID] }
			var catchUp []*history.Txn
			for i := range h.Txns {
				t := &h.Txns[i]
				if !t.Init && !isFullRead(t) && !involved[t.ID] && t.Status == history.OK && t.End > 0 && t.End < first && !read(t) {
					catchUp = append(catchUp, t)
				}
			}
			if len(catchUp) > 0 {
				slices.SortStableFunc(catchUp, func(a, b *history.Txn) int { return cmp.Compare(a.End, b.End) })
				caught := plain
				caught.setup = slices.Clone(plain.setup)
				var names []string
				in := map[int64]bool{}
				for _, t := range catchUp {
					names = append(names, fmt.Sprintf("T%d", t.ID))
					in[t.ID] = true
					for _, s := range t.Stmts {
						if s.Error == "" && s.Kind != "SELECT" {
							caught.setup = append(caught.setup, s.SQL)
						}
					}
				}
				caught.from += fmt.Sprintf(", then the writes of the %d transactions that committed after it and before the finding began (%s), one transaction after the other", len(catchUp), strings.Join(names, ", "))
				out = append(out, withWindow(caught, func(t *history.Txn) bool { return read(t) || in[t.ID] })...)
			}
			// Without them, for when they do not run one after the other
			// (a key they took in turns).
			out = append(out, withWindow(plain, read)...)
		}
	}
	if len(out) == 0 {
		out = withWindow(initial, func(*history.Txn) bool { return false })
	} else {
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
		if s.Table == "" || s.Predicate != "" {
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
	seenAt := k.firstSeen(level)
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
		end, endAt := "COMMIT", t.End
		if t.Status == history.Fail {
			end = "ROLLBACK"
		} else if s, ok := seenAt[t.ID]; ok && s <= endAt {
			// Another transaction read what t wrote before t's COMMIT
			// returned: the commit had taken effect by then.
			endAt = s - 1
		}
		evs = append(evs, event{max(at, endAt), testcase.Step{Conn: conn, SQL: end}})
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	for _, e := range evs {
		c.Steps = append(c.Steps, e.step)
	}
	return c, names
}

// firstSeen is, for each committed transaction of k, the earliest moment
// another transaction of k read a version it wrote: its commit had taken
// effect before then. The run records when a COMMIT returned, which can be
// after a concurrent statement had already seen it. At repeatable read
// and above a transaction reads from the snapshot its first statement
// took, so the moment is that statement's start (a locking read's own
// start: it reads the latest version).
func (k cutout) firstSeen(level target.Level) map[int64]int64 {
	in := map[int64]bool{}
	for _, t := range k.txns {
		if t.Status != history.Fail {
			in[t.ID] = true
		}
	}
	out := map[int64]int64{}
	var ids []int64
	for _, t := range k.txns {
		snap := int64(0)
		for _, s := range t.Stmts {
			if snap == 0 {
				snap = s.Start
			}
			at := s.Start
			if !s.Locking && level != target.ReadCommitted && level != target.ReadUncommitted && snap > 0 {
				at = snap // a locking read reads the latest version instead
			}
			if at == 0 {
				continue
			}
			for _, v := range s.Reads {
				ids, _ = history.AppendWList(ids[:0], v.WList)
				for _, w := range ids {
					if w == t.ID || !in[w] {
						continue
					}
					if cur, ok := out[w]; !ok || at < cur {
						out[w] = at
					}
				}
			}
		}
	}
	return out
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
func (o *StressOracle) replayable(ctx context.Context, t target.Target, replay *Oracle, h *history.History, f *infer.Finding, level target.Level, seed uint64) (*testcase.Case, string, error) {
	cands := stressCutouts(h, f, t.Info().Dialect)
	replays := 0
	var alike *replayed
	try := func(k cutout) (string, bool, error) {
		replays++
		c, _ := k.build(level, seed)
		r, err := reproduces(ctx, replay, t, c, f)
		if err == nil && !r.exact && r.alike != "" && alike == nil {
			alike = &replayed{k: k, verdict: r.alike}
		}
		return r.verdict, r.exact, err
	}
	kept, verdict, found := cands[0], "", false
	var tried []string
	for _, k := range cands {
		v, ok, err := try(k)
		if err != nil {
			return nil, "", err
		}
		if verdict == "" {
			verdict = v
		}
		tried = append(tried, v)
		if ok {
			kept, verdict, found = k, v, true
			break
		}
	}
	if !found && alike != nil {
		// No cut-out gave the finding's own class, but one gave another
		// cycle that the same rule forbids: that case shows the bug, and
		// says so.
		kept, verdict = alike.k, alike.verdict
		tried = nil
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
	} else if len(cands) > 1 && tried != nil {
		verdict = fmt.Sprintf("%s did not reproduce in any of %d cut-outs (%s): the cycle needs the timing of the run", f.Class, len(cands), strings.Join(outcomes(tried), "; "))
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

// outcomes shortens the verdicts of candidates that did not reproduce to
// what happened instead.
func outcomes(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		v, _, _ = strings.Cut(v, ": the cycle needs")
		out[i] = fmt.Sprintf("%d: %s", i+1, v)
	}
	return out
}

// replayed is a cut-out whose replay found another cycle the finding's
// rule forbids.
type replayed struct {
	k       cutout
	verdict string
}

// outcome is what one replay of a cut-out gave: a verdict sentence; exact
// when it found the finding's class; alike, when it found instead another
// class with the finding's verdict and rule, the sentence that says so.
type outcome struct {
	verdict string
	exact   bool
	alike   string
}

// reproduces replays c through the interleaved oracle replay and reports
// whether it finds f's class, with a verdict sentence either way.
func reproduces(ctx context.Context, replay *Oracle, t target.Target, c *testcase.Case, f *infer.Finding) (outcome, error) {
	class := f.Class
	j, err := replay.Check(ctx, t, c, nil, executor.Options{})
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		return outcome{verdict: fmt.Sprintf("it did not run: %v", err)}, nil
	case j.Execution != nil && j.Execution.Hang:
		return outcome{verdict: "it hung"}, nil
	}
	var other []string
	alike := ""
	for _, rf := range j.Findings {
		if rf.Kind == class {
			return outcome{verdict: fmt.Sprintf("it reproduces %s (%s)", rf.Kind, rf.Verdict), exact: true}, nil
		}
		if !slices.Contains(other, rf.Kind) {
			other = append(other, rf.Kind)
		}
		if alike == "" && rf.Verdict == f.Verdict && rf.Rule == f.Rule.Name {
			alike = fmt.Sprintf("it reproduces %s (%s, rule %s) where the run found %s: another cycle in the case that the same rule forbids", rf.Kind, rf.Verdict, rf.Rule, class)
		}
	}
	instead := "no cycle"
	if len(other) > 0 {
		instead = strings.Join(other, ", ")
	}
	if j.Execution != nil {
		for _, ev := range j.Execution.Events {
			if ev.Error != nil && ev.Error.Class == target.ClassDeadlock {
				instead += ", a deadlock"
				break
			}
		}
	}
	return outcome{verdict: fmt.Sprintf("%s did not reproduce (%s): the cycle needs the timing or the rows of the run", class, instead), alike: alike}, nil
}

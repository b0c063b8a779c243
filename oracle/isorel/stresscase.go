package isorel

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	txexec "github.com/txlab/txlab/exec"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/oracle/isorel/infer"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// stressCase turns a stress-mode finding into a case file: the round's
// setup (the init transaction), then the finding's transactions, one
// connection per session of the run, with BEGIN, their statements and
// COMMIT (ROLLBACK for a transaction that failed) in the order they
// happened in the run. The other transactions of the round are left out,
// so the rows may hold other values than the run's transactions saw.
func stressCase(h *history.History, f *infer.Finding, level target.Level, seed uint64) *testcase.Case {
	involved := map[int64]bool{}
	for _, id := range f.Txns {
		involved[id] = true
	}
	c := &testcase.Case{Name: "stress", Isolation: level, Seed: fmt.Sprint(seed)}
	var txns []*history.Txn
	for i := range h.Txns {
		t := &h.Txns[i]
		switch {
		case t.Init:
			for _, s := range t.Stmts {
				c.Setup = append(c.Setup, s.SQL)
			}
		case involved[t.ID]:
			txns = append(txns, t)
		}
	}
	slices.SortStableFunc(txns, func(a, b *history.Txn) int { return cmp.Compare(a.Start, b.Start) })
	type event struct {
		at   int64
		step testcase.Step
	}
	var evs []event
	names := make([]string, len(txns))
	connOf := map[int]int{} // one connection per session: session order is part of some cycles
	for i, t := range txns {
		conn, ok := connOf[t.Session]
		if !ok {
			conn = len(connOf) + 1
			connOf[t.Session] = conn
		}
		names[i] = fmt.Sprintf("T%d on %d>", t.ID, conn)
		at := t.Start
		evs = append(evs, event{at, testcase.Step{Conn: conn, SQL: "BEGIN"}})
		for _, s := range t.Stmts {
			at = max(at, s.Start)
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
	c.Comments = []string{
		fmt.Sprintf("isorel %s: %s (%s)", f.Class, f.Verdict, f.Rule),
		fmt.Sprintf("From the stress round of the seed header: %s, in the order their statements started.", strings.Join(names, ", ")),
		"The round's other transactions are left out, so rows may hold other values than in the run.",
	}
	return c
}

// replayable builds the case of a stress finding and replays it at once
// through the interleaved oracle, so the report says whether it reproduces.
func (o *StressOracle) replayable(ctx context.Context, t target.Target, h *history.History, f *infer.Finding, level target.Level, seed uint64) (*testcase.Case, string, error) {
	c := stressCase(h, f, level, seed)
	replay := &Oracle{Options: Options{Settings: o.Settings, Model: o.Model, Strict: o.Strict}}
	res, findings, err := replay.Check(ctx, t, c, txexec.Options{})
	var verdict string
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		verdict = fmt.Sprintf("it did not run: %v", err)
	case res != nil && res.Hang:
		verdict = "it hung"
	default:
		verdict = fmt.Sprintf("%s did not reproduce: the cycle needs the timing or the rows of the run", f.Class)
		for _, rf := range findings {
			if rf.Kind == f.Class {
				verdict = fmt.Sprintf("it reproduces %s (%s)", rf.Kind, rf.Verdict)
				break
			}
		}
	}
	c.Comments = append(c.Comments, "Replayed when found: "+verdict+".", "Replay with: "+replayCommand)
	return c, "case.txn is the finding's transactions cut out of the stress run; replayed when found, " + verdict + ".\n" +
		"Replay it with: " + replayCommand, nil
}

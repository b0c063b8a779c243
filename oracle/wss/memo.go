package wss

import (
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// RunMemo keeps the serial runs of the cases of one group. The cases of a
// group share their setup and transactions and differ only in the
// submitted order, so two of them often derive the very same serial case
// (the same transactions, one after another, in the same order). A serial
// case runs one statement at a time on a fresh copy of the initial
// database: its result depends on nothing but its text and the level, so
// it is run once. The memo holds the runs of one setup on one target and
// forgets them when a case with another setup comes, which bounds it to
// one group. It belongs to one oracle, which serves one worker (one
// target, one case at a time): it takes no lock.
type RunMemo struct {
	runs *setupRuns
	// Hits counts the serial runs the memo saved.
	Hits int
}

// setupRuns are the serial runs of one setup on one target.
type setupRuns struct {
	t     target.Target
	setup string
	runs  map[string]*executor.Result
}

// memoKey identifies a serial case's run by what it executes: the
// levels, the setup and the steps (a group's cases differ in their names
// and seeds, which do not run).
func memoKey(c *testcase.Case, opt executor.Options) (setup, key string) {
	s := testcase.Case{Isolation: c.Isolation, ConnIsolation: c.ConnIsolation, Mode: c.Mode, Setup: c.Setup}
	setup = s.String() + "\x00" + string(opt.Isolation)
	s.Steps = c.Steps
	return setup, s.String()
}

func (m *RunMemo) get(t target.Target, c *testcase.Case, opt executor.Options) *executor.Result {
	if m == nil {
		return nil
	}
	setup, key := memoKey(c, opt)
	sr := m.runs
	if sr == nil || sr.t != t || sr.setup != setup {
		return nil
	}
	res := sr.runs[key]
	if res != nil {
		m.Hits++
	}
	return res
}

func (m *RunMemo) put(t target.Target, c *testcase.Case, opt executor.Options, res *executor.Result) {
	if m == nil || res.Hang {
		return
	}
	setup, key := memoKey(c, opt)
	sr := m.runs
	if sr == nil || sr.t != t || sr.setup != setup {
		sr = &setupRuns{t: t, setup: setup, runs: map[string]*executor.Result{}}
		m.runs = sr
	}
	sr.runs[key] = res
}

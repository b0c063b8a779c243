package wss

import (
	"slices"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// TxnState is how a transaction ended in the actual schedule.
type TxnState string

// Transaction end states.
const (
	Committed  TxnState = "committed"   // COMMIT succeeded, or an autocommit statement succeeded
	RolledBack TxnState = "rolled-back" // ended with its own ROLLBACK
	Aborted    TxnState = "aborted"     // the DBMS aborted it (deadlock, serialization failure, failed COMMIT, ...)
	Failed     TxnState = "failed"      // an autocommit statement that returned an error
	Unfinished TxnState = "unfinished"  // never ended (the case has no COMMIT/ROLLBACK for it)
)

// Txn is one transaction of a case (testcase.Txn) with how it ended in the
// actual schedule.
type Txn struct {
	testcase.Txn

	State TxnState `json:"state"`
	// Start and End are positions in the actual schedule: the first event of
	// the transaction (a blocked one counts) and the event that ended it.
	Start int `json:"start"`
	End   int `json:"end"`
	// AbortStep is the step whose error aborted the transaction, or -1.
	AbortStep int `json:"abort_step"`
	// AbortClass is that error's class.
	AbortClass target.ErrorClass `json:"abort_class,omitempty"`
	// EndGroup is the executor's Concurrent group of the ending event: the
	// transactions of one group ended at the same time, in no known order.
	EndGroup int `json:"end_group,omitempty"`
}

// Label names the transaction in reports: "T2 (conn 1)".
func (t *Txn) Label() string {
	return "T" + itoa(t.ID) + " (conn " + itoa(t.Conn) + ")"
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// keyword returns the first word of a statement in upper case
// (testcase.Kind's Keyword).
func keyword(sql string) string { return testcase.Classify(sql).Keyword }

// IsWrite reports whether a statement writes rows (testcase.Kind.IsWrite).
func IsWrite(sql string) bool { return testcase.Classify(sql).IsWrite() }

// IsRead reports whether a statement returns rows that WSS compares at
// serializable: plain queries (testcase.Kind.IsQuery).
func IsRead(sql string) bool { return testcase.Classify(sql).IsQuery() }

// Transactions splits a case's steps into transactions (testcase.Transactions).
// The end states are filled in by annotate.
func Transactions(c *testcase.Case) []*Txn {
	var out []*Txn
	for _, t := range testcase.Transactions(c) {
		out = append(out, &Txn{Txn: *t, Start: -1, End: -1, AbortStep: -1})
	}
	return out
}

// artifact reports whether an error class comes from the concurrency itself
// (a victim or a timeout) and so cannot be expected in a serial run.
func artifact(c target.ErrorClass) bool {
	switch c {
	case target.ClassDeadlock, target.ClassSerialization, target.ClassLockTimeout, target.ClassBusy, target.ClassConnection:
		return true
	}
	return false
}

// annotate reads the actual schedule and fills in each transaction's start,
// end and end state. A transaction the DBMS aborted ends at the event that
// reported the abort, not at its (skipped) COMMIT.
func annotate(c *testcase.Case, txns []*Txn, events []executor.Event) {
	byStep := make([]*Txn, len(c.Steps))
	for _, t := range txns {
		for _, s := range t.Steps {
			byStep[s] = t
		}
	}
	for pos, ev := range events {
		if ev.Step < 0 || ev.Step >= len(byStep) || ev.Status == executor.StatusSkipped {
			continue
		}
		t := byStep[ev.Step]
		if t.Start < 0 {
			t.Start = pos
		}
		if t.State != "" || ev.Status == executor.StatusBlocked {
			continue
		}

		last := ev.Step == t.Steps[len(t.Steps)-1]
		switch {
		case ev.Status == executor.StatusError && ev.Error != nil && ev.Error.RolledBack && t.Explicit:
			t.State, t.End, t.AbortStep, t.AbortClass = Aborted, pos, ev.Step, ev.Error.Class
		case !last:
		case !t.Explicit && ev.Status == executor.StatusOK:
			t.State, t.End = Committed, pos
		case !t.Explicit:
			t.State, t.End = Failed, pos
			if ev.Error != nil && artifact(ev.Error.Class) {
				t.State, t.AbortStep, t.AbortClass = Aborted, ev.Step, ev.Error.Class
			}
		case ev.Kind.For(ev.SQL).Control == testcase.Rollback:
			t.State, t.End = RolledBack, pos
		case ev.Kind.For(ev.SQL).Control != testcase.Commit:
			// The case left the transaction open: it never committed (the
			// session's close rolls it back), and a serial run that
			// committed it, or left it holding its locks, is not the one
			// to compare with.
		case ev.Status == executor.StatusOK:
			t.State, t.End = Committed, pos
		default: // COMMIT failed
			t.State, t.End, t.AbortStep = Aborted, pos, ev.Step
			if ev.Error != nil {
				t.AbortClass = ev.Error.Class
			}
		}
	}
	for _, t := range txns {
		if t.State == "" {
			// Never ended: the session's close rolled it back after every
			// other transaction.
			t.State, t.End = Unfinished, len(events)+t.ID
		}
	}
	for _, t := range txns {
		if t.State != "" && t.End >= 0 && t.End < len(events) {
			t.EndGroup = events[t.End].Concurrent
		}
	}
}

// concurrentOrders returns the orders other than order that the actual
// schedule cannot tell from it: transactions ended by statements one COMMIT
// or ROLLBACK released together (adjacent in FCRFS order, one EndGroup) may
// have taken effect in any order. At most limit orders are returned.
func concurrentOrders(order []*Txn, limit int) [][]*Txn {
	out := [][]*Txn{slices.Clone(order)}
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[i].EndGroup != 0 && order[j].EndGroup == order[i].EndGroup {
			j++
		}
		if j-i > 1 {
			var next [][]*Txn
			for _, o := range out {
				idx := make([]int, j-i)
				for k := range idx {
					idx[k] = k
				}
				for {
					v := slices.Clone(o)
					for k, p := range idx {
						v[i+k] = o[i+p]
					}
					next = append(next, v)
					if len(next) > limit || !nextPerm(idx) {
						break
					}
				}
			}
			out = next
		}
		i = j
	}
	if len(out) > limit+1 {
		out = out[:limit+1]
	}
	return out[1:] // the first is order itself
}

// FCRFS returns the transactions in first-commit/rollback-first-scheduled
// order: by the position of the event that ended them in the actual schedule.
func FCRFS(txns []*Txn) []*Txn {
	out := slices.Clone(txns)
	slices.SortStableFunc(out, func(a, b *Txn) int { return a.End - b.End })
	return out
}

// serialSteps returns the steps a transaction runs in a serial schedule: all
// of them, except that an aborted transaction stops before the statement
// that aborted it (when the abort came from the concurrency: a victim) or
// after it (when the error would recur alone, e.g. a constraint error on
// PostgreSQL), then rolls back. An unfinished explicit transaction rolls back
// at the end. The second result says whether a ROLLBACK must be appended.
func (t *Txn) serialSteps() (steps []int, rollback bool) {
	switch t.State {
	case Aborted:
		for _, s := range t.Steps {
			if s == t.AbortStep {
				if !artifact(t.AbortClass) && t.AbortClass != "" {
					steps = append(steps, s)
				}
				break
			}
			steps = append(steps, s)
		}
		// The abort step itself may be the final COMMIT; either way the
		// transaction must not commit.
		if len(steps) > 0 && len(steps) == len(t.Steps) {
			steps = steps[:len(steps)-1]
		}
		return steps, t.Explicit
	case Unfinished:
		return t.Steps, t.Explicit
	}
	return t.Steps, false
}

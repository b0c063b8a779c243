package instrument

import (
	"fmt"
	"slices"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
)

// Unfaithful compares the instrumented run inst of plan p (already
// stripped, see Plan.Strip) with a plain run of p.Original, statement by
// statement: whether it blocked (a pre-read's wait counts for its
// statement), how it ended (ok, skipped, the error's class and code), the
// rows it returned (as a multiset) and the rows it changed; then the final
// state. It returns "" when the two agree, else the first difference in
// one line. A cycle in an instrumented run that disagrees is a cycle of an
// execution the case does not plainly have.
func Unfaithful(p *Plan, inst, plain *executor.Result) string {
	if inst.Hang || plain.Hang {
		return "one of the runs did not finish"
	}
	want := outcomes(plain.Events)
	got := outcomes(inst.Events)
	for i := range p.Original.Steps {
		if d := want[i].differs(got[i]); d != "" {
			return fmt.Sprintf("step %d (%s): %s", i+1, p.Original.Steps[i].SQL, d)
		}
	}
	for _, name := range plain.Final.Tables() {
		a, b := plain.Final[name], inst.Final[name]
		if !slices.EqualFunc(a, b, func(x, y target.Row) bool { return x.Compare(y) == 0 }) {
			return fmt.Sprintf("the final state of %s: rows %d plainly, %d instrumented, or different values", name, len(a), len(b))
		}
	}
	return ""
}

// outcome is how one original statement ran.
type outcome struct {
	ran     bool
	blocked bool
	// deadlockWait: its wait ended because the connection it waited for
	// was chosen as a deadlock victim. InnoDB finds the deadlock as the
	// lock is requested, so such a wait lasts a moment, and whether txlab
	// sees it is timing: the same execution shows it blocked or not.
	deadlockWait bool
	status       executor.Status
	err          string
	rows         []target.Row
	affected     int64
}

// outcomes collects, per original step, the events made for it; the
// waits of statements txlab added (a pre-read, a BEGIN/COMMIT around the
// statement) count, their results do not.
func outcomes(events []executor.Event) map[int]*outcome {
	out := map[int]*outcome{}
	for k, ev := range events {
		i, main := ev.Step, !ev.Added
		if i < 0 || ev.Implicit {
			continue
		}
		o := out[i]
		if o == nil {
			o = &outcome{}
			out[i] = o
		}
		if ev.Status == executor.StatusBlocked {
			o.blocked = true
			o.deadlockWait = o.deadlockWait || endedByDeadlock(events[k+1:], ev.Conn)
			continue
		}
		if !main {
			// A statement txlab added that failed means the statement did
			// not run as written; one skipped (its transaction had aborted)
			// says no more than the statement's own outcome.
			if ev.Status != executor.StatusOK && ev.Status != executor.StatusSkipped {
				o.ran, o.status = true, ev.Status // the statement did not run as written
			}
			continue
		}
		o.ran, o.status, o.err, o.affected = true, ev.Status, "", ev.Affected
		if ev.Error != nil {
			o.err = string(ev.Error.Class) + " " + ev.Error.Code
		}
		o.rows = slices.Clone(ev.Rows)
		target.SortRows(o.rows)
	}
	return out
}

func (a *outcome) differs(b *outcome) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil || a.ran != b.ran:
		return "ran in one run only"
	case a.blocked != b.blocked && !a.deadlockWait && !b.deadlockWait:
		return fmt.Sprintf("blocked %v plainly, %v instrumented", a.blocked, b.blocked)
	case a.status != b.status || a.err != b.err:
		return fmt.Sprintf("%s %s plainly, %s %s instrumented", a.status, a.err, b.status, b.err)
	case a.affected >= 0 && b.affected >= 0 && a.affected != b.affected:
		return fmt.Sprintf("rows changed: %d plainly, %d instrumented", a.affected, b.affected)
	case !slices.EqualFunc(a.rows, b.rows, func(x, y target.Row) bool { return x.Compare(y) == 0 }):
		return fmt.Sprintf("rows returned: %d plainly, %d instrumented, or different values", len(a.rows), len(b.rows))
	}
	return ""
}

// endedByDeadlock says whether the first thing to happen on another
// connection after conn's statement blocked was a deadlock error: the
// statement conn waited for was the victim, which released its wait.
func endedByDeadlock(after []executor.Event, conn int) bool {
	for _, ev := range after {
		if ev.Conn == conn || ev.Implicit {
			continue
		}
		return ev.Error != nil && ev.Error.Class == target.ClassDeadlock
	}
	return false
}

package instrument

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// TestUnfaithfulDeadlockWait: MDEV-29118's ReplBug case at MariaDB RR, as
// CI recorded it. Connection 2's INSERT waits for connection 1's DELETE;
// connection 1's UPDATE then requests a lock connection 2 holds, InnoDB
// picks connection 2 as the victim at once, and the UPDATE goes on. One
// run saw the UPDATE's wait, the other did not: the same execution, so
// they agree. A wait a COMMIT ended is seen in both runs or the runs
// differ, and that difference is still named.
func TestUnfaithfulDeadlockWait(t *testing.T) {
	c, err := testcase.ParseString("deadlock-wait", "CREATE TABLE a (id INT PRIMARY KEY);\nCREATE TABLE b (id INT PRIMARY KEY);\n"+
		"1> BEGIN;\n1> DELETE FROM a;\n2> BEGIN;\n2> INSERT INTO b SELECT id FROM a;\n1> UPDATE b SET id = id + 1;\n1> COMMIT;\n2> ROLLBACK;\n")
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Original: c}
	ev := func(step int, st executor.Status, resumed bool, cls target.ErrorClass) executor.Event {
		e := executor.Event{Conn: c.Steps[step].Conn, SQL: c.Steps[step].SQL, Step: step, Status: st, Resumed: resumed, Affected: -1}
		if cls != "" {
			e.Error = &target.Error{Class: cls, Code: "1213"}
		}
		return e
	}
	ok, blocked, failed := executor.StatusOK, executor.StatusBlocked, executor.StatusError
	rollback := executor.Event{Conn: 2, SQL: "ROLLBACK", Step: -1, Implicit: true, Status: ok}
	head := []executor.Event{ev(0, ok, false, ""), ev(1, ok, false, ""), ev(2, ok, false, ""), ev(3, blocked, false, "")}
	tail := []executor.Event{ev(5, ok, false, ""), ev(6, executor.StatusSkipped, false, "")}
	plain := &executor.Result{Events: append(append(append([]executor.Event{}, head...),
		ev(3, failed, true, target.ClassDeadlock), rollback, ev(4, ok, false, "")), tail...)}
	sawWait := &executor.Result{Events: append(append(append([]executor.Event{}, head...),
		ev(4, blocked, false, ""), ev(3, failed, true, target.ClassDeadlock), rollback, ev(4, ok, true, "")), tail...)}
	if got := Unfaithful(p, sawWait, plain); got != "" {
		t.Errorf("a wait a deadlock victim ended, seen in one run only: Unfaithful = %q, want agreement", got)
	}
	if got := Unfaithful(p, plain, sawWait); got != "" {
		t.Errorf("the other way round: Unfaithful = %q, want agreement", got)
	}

	// Connection 2's INSERT waits for connection 1's COMMIT in one run
	// only: that is a difference.
	noWait := &executor.Result{Events: []executor.Event{ev(0, ok, false, ""), ev(1, ok, false, ""), ev(2, ok, false, ""),
		ev(3, ok, false, ""), ev(4, ok, false, ""), ev(5, ok, false, ""), ev(6, ok, false, "")}}
	waited := &executor.Result{Events: []executor.Event{ev(0, ok, false, ""), ev(1, ok, false, ""), ev(2, ok, false, ""),
		ev(3, blocked, false, ""), ev(4, ok, false, ""), ev(5, ok, false, ""), ev(3, ok, true, ""), ev(6, ok, false, "")}}
	if got := Unfaithful(p, waited, noWait); !strings.Contains(got, "blocked false plainly, true instrumented") {
		t.Errorf("a wait a COMMIT ended, seen in one run only: Unfaithful = %q, want the blocked difference", got)
	}
}

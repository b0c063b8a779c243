package wss

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// TestFCRFSVictim derives transactions and the FCRFS order from a recorded
// deadlock schedule (as exec reports it on MariaDB): the victim counts as
// rolled back when it aborted, before the transaction that blocked on it
// commits, and its serial steps stop before the aborting statement.
func TestFCRFSVictim(t *testing.T) {
	c, err := testcase.ParseFile(filepath.Join("testdata", "victim.txn"))
	if err != nil {
		t.Fatal(err)
	}
	txns := Transactions(c)
	if len(txns) != 3 {
		t.Fatalf("%d transactions, want 3", len(txns))
	}
	ok := func(step int) executor.Event {
		return executor.Event{Conn: c.Steps[step].Conn, SQL: c.Steps[step].SQL, Step: step, Status: executor.StatusOK}
	}
	blocked := ok(5)
	blocked.Status = executor.StatusBlocked
	victim := ok(6)
	victim.Status = executor.StatusError
	victim.Error = &target.Error{Class: target.ClassDeadlock, RolledBack: true}
	resumed := ok(5)
	resumed.Resumed = true
	skipped := ok(8)
	skipped.Status = executor.StatusSkipped
	events := []executor.Event{
		ok(0), ok(1), ok(2), ok(3), ok(4), blocked, victim,
		{Conn: 2, SQL: "ROLLBACK", Step: -1, Implicit: true, Status: executor.StatusOK},
		resumed, ok(7), skipped,
	}
	annotate(c, txns, events)
	order := FCRFS(txns)
	if got := ids(order); !slices.Equal(got, []int{3, 2, 1}) {
		t.Errorf("FCRFS %v, want [3 2 1]", got)
	}
	want := []TxnState{Committed, Aborted, Committed}
	for i, tx := range txns {
		if tx.State != want[i] {
			t.Errorf("T%d state %s, want %s", tx.ID, tx.State, want[i])
		}
	}
	steps, rollback := txns[1].serialSteps()
	if !slices.Equal(steps, []int{2, 3}) || !rollback {
		t.Errorf("victim serial steps %v rollback %v, want [2 3] true", steps, rollback)
	}
	if steps, rollback := txns[0].serialSteps(); !slices.Equal(steps, []int{0, 1, 5, 7}) || rollback {
		t.Errorf("committed serial steps %v rollback %v", steps, rollback)
	}
}

func TestStatementKinds(t *testing.T) {
	for _, tc := range []struct {
		sql         string
		write, read bool
		control     testcase.Control
	}{
		{"INSERT INTO t VALUES (1)", true, false, testcase.NotControl},
		{"replace into t values (1)", true, false, testcase.NotControl},
		{"SELECT * FROM t FOR UPDATE", false, true, testcase.NotControl},
		{"BEGIN", false, false, testcase.Begin},
		{"START TRANSACTION", false, false, testcase.Begin},
		{"commit", false, false, testcase.Commit},
		{"ROLLBACK", false, false, testcase.Rollback},
		{"ROLLBACK TO SAVEPOINT a", false, false, testcase.NotControl},
	} {
		if IsWrite(tc.sql) != tc.write || IsRead(tc.sql) != tc.read || testcase.ControlOf(tc.sql) != tc.control {
			t.Errorf("%q: write %v read %v control %v", tc.sql, IsWrite(tc.sql), IsRead(tc.sql), testcase.ControlOf(tc.sql))
		}
	}
}

// TestOpenTransactionUnfinished: an explicit transaction the case leaves
// open (its last statement is not COMMIT) never committed — the session's
// close rolls it back — so its serial steps end with a ROLLBACK. It was
// taken for committed, and its serial run, first in FCRFS order, held its
// row lock and hung the next transaction until the hang timeout
// (MYSQL-95049's ReplBug case).
func TestOpenTransactionUnfinished(t *testing.T) {
	c, err := testcase.ParseString("open", "CREATE TABLE t (id INT PRIMARY KEY, v INT);\n"+
		"1> BEGIN;\n1> UPDATE t SET v = 1 WHERE id = 1;\n2> BEGIN;\n2> UPDATE t SET v = 2 WHERE id = 2;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	txns := Transactions(c)
	var events []executor.Event
	for i, st := range c.Steps {
		events = append(events, executor.Event{Conn: st.Conn, SQL: st.SQL, Step: i, Status: executor.StatusOK})
	}
	annotate(c, txns, events)
	if txns[0].State != Committed || txns[1].State != Unfinished {
		t.Fatalf("states %s, %s; want committed, unfinished", txns[0].State, txns[1].State)
	}
	if steps, rollback := txns[1].serialSteps(); !slices.Equal(steps, []int{2, 3}) || !rollback {
		t.Errorf("open transaction's serial steps %v rollback %v, want [2 3] true", steps, rollback)
	}
}

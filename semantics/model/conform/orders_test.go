package conform

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestOrders: the orders the model tries are the recorded one first, then
// those the record does not rule out: each order of statements one COMMIT
// released together, and each earlier point at which a released
// autocommit write may have run; past maxOrders there are too many.
func TestOrders(t *testing.T) {
	ev := func(conn int, sql string, status executor.Status, group int) executor.Event {
		return executor.Event{Conn: conn, SQL: sql, Status: status, Concurrent: group, Resumed: status == executor.StatusOK && group != 0}
	}
	ok, blocked := executor.StatusOK, executor.StatusBlocked
	for _, tc := range []struct {
		name   string
		events []executor.Event
		want   string
	}{
		{"no uncertainty", []executor.Event{ev(1, "BEGIN", ok, 0), ev(1, "UPDATE t SET v = 1", ok, 0), ev(1, "COMMIT", ok, 0)},
			"[[0 1 2]]"},
		{"two released together", []executor.Event{
			ev(1, "BEGIN", ok, 0), ev(1, "UPDATE t SET v = 1", ok, 0),
			ev(2, "BEGIN", ok, 0), ev(2, "UPDATE t SET v = 2", blocked, 0),
			ev(3, "BEGIN", ok, 0), ev(3, "UPDATE t SET v = 3", blocked, 0),
			ev(1, "COMMIT", ok, 0), ev(2, "UPDATE t SET v = 2", ok, 1), ev(3, "UPDATE t SET v = 3", ok, 1)},
			"[[0 1 2 3 4 5 6 7 8] [0 1 2 3 4 5 6 8 7]]"},
		{"an autocommit write overtaken", []executor.Event{
			ev(1, "BEGIN", ok, 0), ev(1, "UPDATE t SET v = 1", ok, 0),
			ev(2, "UPDATE t SET v = 2", blocked, 0),
			ev(1, "COMMIT", ok, 0), ev(3, "SELECT v FROM t", ok, 0), ev(2, "UPDATE t SET v = 2", ok, 0)},
			"[[0 1 2 3 4 5] [0 1 2 3 5 4]]"},
	} {
		orders, fine := Orders(&executor.Result{Events: tc.events})
		if got := fmt.Sprint(orders); !fine || got != tc.want {
			t.Errorf("%s: orders %s (ok %v), want %s", tc.name, got, fine, tc.want)
		}
	}
	// Five statements released together: 120 orders, too many.
	var evs []executor.Event
	for c := 1; c <= 5; c++ {
		evs = append(evs, ev(c, "UPDATE t SET v = 0", blocked, 0))
	}
	evs = append(evs, ev(6, "COMMIT", ok, 0))
	for c := 1; c <= 5; c++ {
		evs = append(evs, ev(c, "UPDATE t SET v = 0", ok, 1))
	}
	if orders, fine := Orders(&executor.Result{Events: evs}); fine || orders != nil {
		t.Errorf("five released together: %d orders, ok %v; want too many", len(orders), fine)
	}
}

// TestCheckTriesOrders: two autocommit statements one COMMIT released
// together, recorded in one order. Where the rows returned fit only the
// other order, the execution conforms (the server may have taken it);
// where they fit neither, it deviates, and the deviation says so.
func TestCheckTriesOrders(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	ctx := context.Background()
	cs, err := testcase.ParseString("released", "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 0);\n"+
		"1> BEGIN;\n1> UPDATE t SET v = 1 WHERE id = 1;\n2> UPDATE t SET v = 5 WHERE id = 1;\n3> SELECT v FROM t WHERE id = 1 FOR UPDATE;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	c := &Checker{}
	defer c.Close()
	row := func(v string) []target.Row { return []target.Row{{{S: v}}} }
	for _, tc := range []struct {
		selected string
		conforms bool
	}{{"5", true}, {"7", false}} {
		step := func(i int) testcase.Step { return cs.Steps[i] }
		ev := func(i int, status executor.Status, group int) executor.Event {
			s := step(i)
			return executor.Event{Conn: s.Conn, SQL: s.SQL, Step: i, Status: status, Concurrent: group, Resumed: group != 0, Affected: -1}
		}
		sel := ev(3, executor.StatusOK, 1)
		sel.Columns, sel.Rows = []string{"v"}, row(tc.selected)
		upd := ev(2, executor.StatusOK, 1)
		upd.Affected = 1
		first := ev(1, executor.StatusOK, 0)
		first.Affected = 1
		res := &executor.Result{
			Events: []executor.Event{ev(0, executor.StatusOK, 0), first, ev(2, executor.StatusBlocked, 0), ev(3, executor.StatusBlocked, 0),
				ev(4, executor.StatusOK, 0), sel, upd},
			Final:   target.State{"t": {{{S: "1"}, {S: "5"}}}},
			Default: tg.DefaultLevel(),
		}
		conf, err := c.Check(ctx, tg, cs, res)
		if err != nil {
			t.Fatal(err)
		}
		if conf.Conforms() != tc.conforms {
			t.Errorf("SELECT … FOR UPDATE returned %s: conforms %v (deviation %+v, halted %q), want %v", tc.selected, conf.Conforms(), conf.Deviation, conf.Halted, tc.conforms)
			continue
		}
		if !tc.conforms && (conf.Deviation == nil || !strings.Contains(conf.Deviation.Text, "in each of the 2 orders")) {
			t.Errorf("SELECT … FOR UPDATE returned %s: deviation %+v, want one in each of the 2 orders", tc.selected, conf.Deviation)
		}
	}
}

// TestCheckFollowsChoices: at READ COMMITTED, InnoDB creates a statement's
// read view when its first consistent read runs, which may follow its lock
// wait: the subquery of an UPDATE that waited may read u before or after
// the holder's commit changed it. Each final state those two views give
// conforms; one neither gives deviates in every replay.
func TestCheckFollowsChoices(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	ctx := context.Background()
	cs, err := testcase.ParseString("choice", "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nCREATE TABLE u (id INT PRIMARY KEY);\n"+
		"INSERT INTO t VALUES (1, 0), (2, 0);\nINSERT INTO u VALUES (1);\n"+
		"1> BEGIN;\n1> UPDATE t SET v = 5 WHERE id = 1;\n1> UPDATE u SET id = 2 WHERE id = 1;\n"+
		"2> UPDATE t SET v = 9 WHERE id IN (SELECT id FROM u);\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	cs.Isolation = "read-committed"
	c := &Checker{}
	defer c.Close()
	ev := func(i int, status executor.Status, affected int64) executor.Event {
		s := cs.Steps[i]
		return executor.Event{Conn: s.Conn, SQL: s.SQL, Step: i, Status: status, Resumed: i == 3 && status == executor.StatusOK, Affected: affected}
	}
	state := func(v1, v2 string) target.State {
		return target.State{"t": {{{S: "1"}, {S: v1}}, {{S: "2"}, {S: v2}}}, "u": {{{S: "2"}}}}
	}
	for _, tc := range []struct {
		final    target.State
		conforms bool
	}{
		{state("9", "0"), true},  // the subquery read u before the commit
		{state("5", "9"), true},  // and after it
		{state("9", "9"), false}, // neither
	} {
		res := &executor.Result{
			Events: []executor.Event{ev(0, executor.StatusOK, -1), ev(1, executor.StatusOK, 1), ev(2, executor.StatusOK, 1),
				ev(3, executor.StatusBlocked, -1), ev(4, executor.StatusOK, -1), ev(3, executor.StatusOK, 1)},
			Levels: map[int]target.Level{1: "read-committed", 2: "read-committed"},
			Final:  tc.final,
		}
		conf, err := c.Check(ctx, tg, cs, res)
		if err != nil {
			t.Fatal(err)
		}
		if conf.Conforms() != tc.conforms || (!tc.conforms && conf.Deviation == nil) {
			t.Errorf("final %v: conforms %v (deviation %+v, halted %q), want %v", tc.final, conf.Conforms(), conf.Deviation, conf.Halted, tc.conforms)
		}
	}
}

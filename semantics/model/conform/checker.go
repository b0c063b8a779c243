// Package conform judges executions against the model (package model): it
// replays a case's recorded schedule through the engine, in each order its
// statements may have taken effect and each choice of the rows the rules
// leave open, computing statement results on copies of the tables in the
// DBMS itself. It is the part of the model that needs the executor's
// results, kept apart so that package semantics, which judges with the
// model's conformance, does not depend on running cases.
package conform

import (
	"context"
	"fmt"
	"sync"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Checker judges executions against the model. It keeps an evaluator
// session on the target it judges on (the temporary tables live there) and
// remembers the last execution it judged, so several oracles judging the
// same plain execution pay for the model once. It serves the oracles of
// one worker, which judge one case at a time on the worker's target:
// judging takes no lock (asked about another target, it moves its session
// there). mu stays for Close, which may run while a judging that a frozen
// server cut off (executor.Watch leaves it to end by itself) still opens
// the session.
type Checker struct {
	// Settings are the server settings the rules depend on.
	Settings map[string]string

	mu      sync.Mutex
	scratch *scratch
}

// scratch is the evaluator session on one target.
type scratch struct {
	t      target.Target
	s      target.Session
	tables []string
	last   *executor.Result
	conf   *model.Conformance
	// broken: a statement of the session was cut off (its judging ran out
	// of time) or its connection broke, so the session is not used again.
	broken bool
}

// renew replaces a broken evaluator session with a new one of t; the
// temporary tables went with the old connection.
func (s *scratch) renew(ctx context.Context, t target.Target) error {
	s.s.Close()
	sess, err := t.Open(ctx)
	if err != nil {
		return fmt.Errorf("model: opening the evaluator session: %w", err)
	}
	s.s, s.tables, s.broken, s.last, s.conf = sess, nil, false, nil, nil
	return nil
}

// cutOff reports whether err leaves the session unusable: the connection
// broke, or a statement was cancelled mid-way (a driver closes the
// connection of a query whose context ends).
func cutOff(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	if te := target.AsError(err); te != nil && te.Class == target.ClassConnection {
		return true
	}
	return ctx.Err() != nil
}

func (s *scratch) Exec(ctx context.Context, sql string) (*target.Result, error) {
	return s.s.Exec(ctx, sql)
}

// session returns the evaluator session on t, opening it on first use.
func (c *Checker) session(ctx context.Context, t target.Target) (*scratch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scratch != nil && c.scratch.t == t {
		return c.scratch, nil
	}
	if c.scratch != nil {
		c.scratch.s.Close()
		c.scratch = nil
	}
	sess, err := t.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("model: opening the evaluator session: %w", err)
	}
	if _, ok := sess.(target.TempTables); !ok {
		sess.Close()
		return nil, fmt.Errorf("model: the %s adapter cannot drop temporary tables", t.Info().DBMS)
	}
	c.scratch = &scratch{t: t, s: sess}
	return c.scratch, nil
}

// Close ends the evaluator session.
func (c *Checker) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scratch != nil {
		c.scratch.s.Close()
		c.scratch = nil
	}
	return nil
}

// Check judges execution res of case cs on t.
func (c *Checker) Check(ctx context.Context, t target.Target, cs *testcase.Case, res *executor.Result) (*model.Conformance, error) {
	level, ok := oneLevel(t, res)
	info := t.Info()
	conf := &model.Conformance{Level: level, Rules: model.Lookup(info.DBMS, level, c.Settings)}
	switch {
	case res == nil || res.Hang:
		conf.Halted, conf.Reason = "the case did not finish", "hang"
		return conf, nil
	case res.Truncated != "":
		// The model compares every row a statement returned, and the
		// final state: part of them would make deviations that are not.
		conf.Halted, conf.Reason = res.Truncated, model.ReasonTruncated
		return conf, nil
	case !ok:
		conf.Halted, conf.Reason = "connections run at different isolation levels", "connections at different levels"
		return conf, nil
	case !conf.Rules.Known:
		conf.Halted, conf.Reason = fmt.Sprintf("no model of %s at %s", info.DBMS, level), "no model of the level"
		return conf, nil
	}
	sc, err := c.session(ctx, t)
	if err != nil {
		return nil, err
	}
	if sc.last == res && sc.conf != nil {
		return sc.conf, nil
	}
	if sc.broken {
		if err := sc.renew(ctx, t); err != nil {
			return nil, err
		}
	}
	if len(sc.tables) > 0 {
		err := sc.s.(target.TempTables).DropTemporary(ctx, sc.tables)
		sc.tables = nil
		if cutOff(ctx, err) && ctx.Err() == nil {
			err = sc.renew(ctx, t)
		}
		if err != nil {
			sc.broken = cutOff(ctx, err)
			return nil, fmt.Errorf("model: dropping the evaluator's tables: %w", err)
		}
	}
	eng := model.NewEngine(conf.Rules, info.Dialect, sc)
	defer func() { sc.tables = eng.Tables() }()
	if err := eng.Setup(ctx, cs.Setup); err != nil {
		sc.broken = cutOff(ctx, err)
		return nil, err
	}
	if err := judgeOrders(ctx, eng, res, conf); err != nil {
		sc.broken = cutOff(ctx, err)
		return nil, err
	}
	sc.last, sc.conf = res, conf
	return conf, nil
}

// maxReplays bounds the replays of one case, over its orders and
// choices: past it, the case is left undecided.
const maxReplays = 64

// judgeOrders replays every order the schedule's statements may have taken
// effect in (Orders), and in each order every choice the rules leave open
// (the views of a write whose rows the rules do not fix: Engine.choose),
// each on a copy of the engine as the setup left it. The execution
// conforms when one replay does: the server may have taken that order
// and those rows. Otherwise a replay the model cannot finish leaves the
// case undecided, and when every replay deviates, the deviation is the
// mildest one (a documented variation before a bug).
func judgeOrders(ctx context.Context, base *model.Engine, res *executor.Result, conf *model.Conformance) error {
	orders, ok := Orders(res)
	if !ok {
		base.Stop(reasonTooManyOrders, fmt.Sprintf("more than %d orders in which statements released together may have taken effect", maxOrders))
		orders = [][]int{nil}
	}
	var dev *model.Deviation
	devOrder := -1
	halted, reason := "", ""
	replays := 0
	for k, order := range orders {
		var script []int
		for {
			replays++
			if replays > maxReplays {
				conf.Halted, conf.Reason = fmt.Sprintf("more than %d replays of the orders and the open rows the rules permit", maxReplays), "too many replays"
				return nil
			}
			eng := base.Fork(script)
			d, err := play(ctx, eng, res, order)
			if err != nil {
				return err
			}
			if d == nil {
				d = eng.Final(ctx, res.Final)
			}
			switch {
			case d == nil && eng.Halted() == "":
				return nil // conforms
			case d == nil:
				if halted == "" {
					halted, reason = eng.Halted(), eng.HaltReason()
				}
			case dev == nil || milder(d.Verdict, dev.Verdict) || d.Verdict == dev.Verdict && named(d, base) && !named(dev, base):
				dev, devOrder = d, k
			}
			next, more := eng.NextScript()
			if !more {
				break
			}
			script = next
		}
	}
	if halted != "" {
		if replays > 1 {
			halted += fmt.Sprintf(" (in one of %d replays of the orders and rows the rules permit)", replays)
		}
		conf.Halted, conf.Reason = halted, reason
		return nil
	}
	switch {
	case len(orders) > 1:
		dev.Text += fmt.Sprintf(" (in each of the %d orders in which statements released together may have taken effect, and each choice of the rows the rules leave open; shown for %s)", len(orders), orderText(res, orders[devOrder]))
	case replays > 1:
		dev.Text += fmt.Sprintf(" (in each of the %d choices of the rows the rules leave open)", replays)
	}
	conf.Deviation = dev
	return nil
}

// named reports whether deviation d carries a rule of its own (a
// variation: a documented behaviour or a confirmed bug) rather than the
// level's generic statement-view rule. Of replays that all deviate with
// one verdict, the one a named rule explains is the better account: in
// another order or choice of rows the same execution may have been a
// known defect (MDEV-30835's UPDATE after a DELETE's plain view).
func named(d *model.Deviation, e *model.Engine) bool {
	return d.Rule.Name != e.Rules().StatementView().Name
}

// milder reports whether verdict a is milder than b: a documented
// variation or an undecided outcome before a bug.
func milder(a, b verdict.Verdict) bool {
	rank := func(v verdict.Verdict) int {
		switch v {
		case verdict.Bug:
			return 2
		case verdict.Suspect:
			return 1
		}
		return 0
	}
	return rank(a) < rank(b)
}

// oneLevel is the isolation level every connection ran at; false when
// they differ (the model refuses a mixed run, executor.Result.Level).
func oneLevel(t target.Target, res *executor.Result) (target.Level, bool) {
	if res == nil {
		return executor.ConcreteOn(t, ""), true
	}
	if res.Mixed() {
		return "", false
	}
	return res.Level(), true
}

// play feeds the schedule to the engine in the given order (indexes into
// res.Events, see Orders) and returns the first deviation. Positions in
// that order are the engine's times.
func play(ctx context.Context, eng *model.Engine, res *executor.Result, order []int) (*model.Deviation, error) {
	start := map[int]int{}
	for i, at := range order {
		// A statement's judging costs time in the size of the history so
		// far: a long case must end with its bound (the caller's ctx).
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ev := res.Events[at]
		switch ev.Status {
		case executor.StatusBlocked:
			start[ev.Conn] = i
			continue
		case executor.StatusSkipped:
			continue
		}
		st := &model.Stmt{Conn: ev.Conn, Step: ev.Step, SQL: ev.SQL, Start: i, End: i,
			Err: ev.Error, Columns: ev.Columns, Rows: ev.Rows, Affected: ev.Affected, Kind: ev.Kind}
		if s, ok := start[ev.Conn]; ok && ev.Resumed {
			st.Start = s
		}
		for c, s := range start {
			if c != ev.Conn && s < st.Start {
				st.Waiting = append(st.Waiting, c)
			}
		}
		delete(start, ev.Conn)
		dev, err := eng.Step(ctx, st)
		if err != nil || dev != nil {
			return dev, err
		}
	}
	return nil, nil
}

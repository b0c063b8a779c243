package model

import (
	"context"
	"fmt"
	"sync"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Conformance is what the model makes of one execution.
type Conformance struct {
	Rules Rules
	Level target.Level
	// Deviation is the first statement (or the final state) outside the
	// permitted set, or nil.
	Deviation *Deviation
	// Halted says why the model stopped judging before the end ("" when
	// it judged every statement and the final state), or why it could not
	// judge at all.
	Halted string
	// Reason is Halted's short form, the same for every case that stopped
	// for the same cause, for counting ("open rows: UPDATE").
	Reason string
}

// Conforms reports whether every statement and the final state lie inside
// the permitted set: whatever anomaly the execution shows, the DBMS's
// documented views produce it.
func (c *Conformance) Conforms() bool { return c.Deviation == nil && c.Halted == "" }

// Checker judges executions against the model. It keeps one evaluator
// session per target (the temporary tables live there) and remembers the
// last execution it judged, so several oracles judging the same plain
// execution pay for the model once. It serves the oracles of one worker,
// which judge one case at a time: a session takes no lock. Its map of
// sessions keeps one, for Close may run while a judging that a frozen
// server cut off (executor.Watch leaves it to end by itself) still opens
// a session.
type Checker struct {
	// Settings are the server settings the rules depend on.
	Settings map[string]string

	mu       sync.Mutex
	sessions map[target.Target]*scratch
}

// scratch is the evaluator session of one target.
type scratch struct {
	s      target.Session
	tables []string
	last   *executor.Result
	conf   *Conformance
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

func (c *Checker) scratch(ctx context.Context, t target.Target) (*scratch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions == nil {
		c.sessions = map[target.Target]*scratch{}
	}
	if s := c.sessions[t]; s != nil {
		return s, nil
	}
	sess, err := t.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("model: opening the evaluator session: %w", err)
	}
	if _, ok := sess.(target.TempTables); !ok {
		sess.Close()
		return nil, fmt.Errorf("model: the %s adapter cannot drop temporary tables", t.Info().DBMS)
	}
	s := &scratch{s: sess}
	c.sessions[t] = s
	return s, nil
}

// Close ends the evaluator sessions.
func (c *Checker) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, s := range c.sessions {
		s.s.Close()
		delete(c.sessions, t)
	}
	return nil
}

// Check judges execution res of case cs on t.
func (c *Checker) Check(ctx context.Context, t target.Target, cs *testcase.Case, res *executor.Result) (*Conformance, error) {
	level, ok := oneLevel(t, res)
	info := t.Info()
	conf := &Conformance{Level: level, Rules: Lookup(info.DBMS, level, c.Settings)}
	switch {
	case res == nil || res.Hang:
		conf.Halted, conf.Reason = "the case did not finish", "hang"
		return conf, nil
	case !ok:
		conf.Halted, conf.Reason = "connections run at different isolation levels", "connections at different levels"
		return conf, nil
	case !conf.Rules.Known:
		conf.Halted, conf.Reason = fmt.Sprintf("no model of %s at %s", info.DBMS, level), "no model of the level"
		return conf, nil
	}
	sc, err := c.scratch(ctx, t)
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
	eng := NewEngine(conf.Rules, info.Dialect, sc)
	defer func() { sc.tables = eng.Tables() }()
	if err := eng.Setup(ctx, cs.Setup); err != nil {
		sc.broken = cutOff(ctx, err)
		return nil, err
	}
	dev, err := replay(ctx, eng, res)
	if err != nil {
		sc.broken = cutOff(ctx, err)
		return nil, err
	}
	if dev == nil {
		dev = eng.Final(ctx, res.Final)
	}
	conf.Deviation = dev
	if dev == nil {
		conf.Halted, conf.Reason = eng.Halted(), eng.HaltReason()
	}
	sc.last, sc.conf = res, conf
	return conf, nil
}

// oneLevel is the isolation level every connection ran at.
func oneLevel(t target.Target, res *executor.Result) (target.Level, bool) {
	var l target.Level
	if res != nil {
		for _, cl := range res.ConcreteLevels(t.DefaultLevel()) {
			if l != "" && cl != l {
				return "", false
			}
			l = cl
		}
	}
	if l == "" {
		l = t.DefaultLevel()
	}
	return l, true
}

// replay feeds the schedule to the engine in completion order and returns
// the first deviation.
func replay(ctx context.Context, eng *Engine, res *executor.Result) (*Deviation, error) {
	// Statements one COMMIT released together ran at the same time: if
	// more than one of them touches data, their order is unknown.
	groups := map[int]int{}
	for _, ev := range res.Events {
		if ev.Concurrent != 0 && ev.Status != executor.StatusBlocked && ev.Kind.For(ev.SQL).Control == testcase.NotControl {
			groups[ev.Concurrent]++
		}
	}
	start := map[int]int{}
	// An autocommit write that waited commits when it completes. Once a
	// transaction ends it may have been released, and it may have run and
	// committed before the executor saw its result: statements recorded
	// in between might have seen it.
	explicit := map[int]bool{}
	pending := map[int]bool{} // conn → released since it blocked
	for i, ev := range res.Events {
		// A statement's judging costs time in the size of the history so
		// far: a long case must end with its bound (the caller's ctx).
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kind := ev.Kind.For(ev.SQL)
		ctl := kind.Control
		switch ev.Status {
		case executor.StatusBlocked:
			start[ev.Conn] = i
			if ctl == testcase.NotControl && !explicit[ev.Conn] && kind.Changes {
				pending[ev.Conn] = false
			}
			continue
		case executor.StatusSkipped:
			continue
		}
		if groups[ev.Concurrent] > 1 {
			eng.Stop("statements released together", "statements released together by one COMMIT or ROLLBACK ran in an order the schedule does not tell")
			return nil, nil
		}
		if ctl == testcase.NotControl {
			for c, released := range pending {
				if c != ev.Conn && released {
					eng.Stop("a released write may have run earlier", fmt.Sprintf("connection %d's write, released earlier, may have run before it was recorded", c))
					return nil, nil
				}
			}
		}
		delete(pending, ev.Conn)
		ends := ctl == testcase.Commit || ctl == testcase.Rollback ||
			(ev.Error != nil && ev.Error.RolledBack) || (ctl == testcase.NotControl && !explicit[ev.Conn])
		switch {
		case ctl == testcase.Begin && ev.Error == nil:
			explicit[ev.Conn] = true
		case ends:
			explicit[ev.Conn] = false
		}
		if ends {
			for c := range pending {
				pending[c] = true
			}
		}
		st := &Stmt{Conn: ev.Conn, Step: ev.Step, SQL: ev.SQL, Start: i, End: i,
			Err: ev.Error, Columns: ev.Columns, Rows: ev.Rows, Affected: ev.Affected}
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

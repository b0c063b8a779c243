package executor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// Live runs statements as a person types them (txlab shell), one session
// per connection, through the same protocol as Run: a statement that waits
// on a lock is reported blocked at once, later statements of its connection
// queue behind it, and its completion is recorded as resumed. The
// statements submitted so far form a case (Case) that Run replays to the
// same schedule. Live's methods may be called from several goroutines.
type Live struct {
	mu     sync.Mutex
	r      *runner
	ctx    context.Context
	cancel context.CancelFunc
	seen   int  // events already handed out
	schema bool // a statement may have created or changed a table
	closed bool
	// changes are the level changes (SetIsolation) in the order made: a
	// case gives each connection one level, so Case saves the steps a
	// connection ran after a change on a connection of their own.
	changes []levelChange
	// initial are the connections' own levels the session began with.
	initial map[int]target.Level
}

// levelChange is connection conn's level set to level before step from
// (the number of steps submitted then).
type levelChange struct {
	conn, from int
	level      target.Level
}

// StartLive empties txlab's tables, as Run does before a case, and returns
// a Live with no connection open yet. Connections open at the level of the
// case's Isolation and ConnIsolation when first used.
func StartLive(ctx context.Context, t target.Target, c *testcase.Case, opt Options) (*Live, error) {
	opt = opt.withDefaults()
	if _, _, err := prepare(ctx, t, nil); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &runner{t: t, c: c, opt: opt, conns: map[int]*conn{},
		// A person takes their time: no hang timeout.
		hangAt: time.Now().Add(100 * 365 * 24 * time.Hour)}
	return &Live{r: r, ctx: rctx, cancel: cancel, initial: maps.Clone(c.ConnIsolation)}, nil
}

// Exec submits sql on connection n (opening it first) and returns the
// schedule events recorded since the last call: the statement's own
// outcome (or BLOCKED), and the statements of other connections it let
// complete. A statement on a blocked connection queues (no event yet).
func (l *Live) Exec(n int, sql string) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("session closed")
	}
	if err := scope.Check(sql, scope.For(l.r.t.Info(), l.r.opt.TrustCase)); err != nil {
		return nil, &ScopeError{err.Error()}
	}
	cn, err := l.open(n)
	if err != nil {
		return nil, err
	}
	r := l.r
	kind := testcase.Classify(sql)
	r.c.Steps = append(r.c.Steps, testcase.Step{Conn: n, SQL: sql, Kind: kind})
	schema := kind.Schema
	l.schema = l.schema || schema
	i := len(r.c.Steps) - 1
	if cn.inflight != nil || len(cn.backlog) > 0 {
		cn.backlog = append(cn.backlog, i)
		return l.news(), nil
	}
	if err := r.submit(l.ctx, cn, i); err != nil {
		return l.news(), err
	}
	if err := r.settle(l.ctx); err != nil {
		return l.news(), err
	}
	if schema && cn.inflight == nil {
		// A table the session created is txlab's at once: \state dumps
		// it, and a later run may drop it.
		ForgetSetup(r.t)
		if err := adopt(l.ctx, r.t, stepsSQL(r.c)); err != nil {
			return l.news(), err
		}
	}
	return l.news(), nil
}

// Poll records blocked statements that have completed since (a lock wait
// timeout, a deadlock found by the server) without submitting anything, and
// returns the new events.
func (l *Live) Poll() ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, nil
	}
	r := l.r
	for {
		progressed, err := r.progress(l.ctx)
		if err != nil {
			return l.news(), err
		}
		if !progressed {
			break
		}
	}
	return l.news(), r.settle(l.ctx)
}

// SetIsolation sets connection n's level: for its next transaction if it
// is open (and idle), from the start if it opens later.
func (l *Live) SetIsolation(n int, level target.Level) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cn := l.r.conns[n]; cn != nil {
		if cn.inflight != nil {
			return fmt.Errorf("connection %d is blocked", n)
		}
		if cn.inTxn {
			// The statements after the change start a transaction of their
			// own, which Case can give a connection of its own.
			return fmt.Errorf("connection %d is in a transaction: change its level after its COMMIT or ROLLBACK", n)
		}
		if err := cn.sess.SetIsolation(l.ctx, level); err != nil {
			return err
		}
	}
	if l.r.c.ConnIsolation == nil {
		l.r.c.ConnIsolation = map[int]target.Level{}
	}
	l.r.c.ConnIsolation[n] = level
	l.changes = append(l.changes, levelChange{conn: n, from: len(l.r.c.Steps), level: level})
	return nil
}

// ConnState is one connection as \conns shows it.
type ConnState struct {
	Conn    int
	Level   target.Level // "" = the DBMS default
	InTxn   bool
	Blocked string // the statement it waits on, "" when idle
	Queued  int    // statements queued behind it
	Aborted bool   // the DBMS aborted its transaction; statements are skipped until its end
}

// Conns describes the open connections, in the order they opened.
func (l *Live) Conns() []ConnState {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ConnState
	for _, cn := range l.r.order {
		s := ConnState{Conn: cn.num, Level: l.r.c.LevelOf(cn.num), InTxn: cn.inTxn, Queued: len(cn.backlog), Aborted: cn.aborted}
		if cn.inflight != nil {
			s.Blocked = cn.inflight.sql
		}
		out = append(out, s)
	}
	return out
}

// Case returns the session so far as a case: the statements submitted, in
// order, with the connections' levels. Leading statements that ran in
// autocommit without blocking or failing, before any transaction began,
// become its setup, as a case file would hold them.
func (l *Live) Case() *testcase.Case { return l.CaseWithout(nil) }

// CaseWithout is Case without the steps drop names (indexes of the steps
// submitted, Event.Step): the shell leaves out statements that failed as
// invalid, which a person mistyped.
func (l *Live) CaseWithout(drop map[int]bool) *testcase.Case {
	l.mu.Lock()
	defer l.mu.Unlock()
	src := l.r.c
	c := &testcase.Case{Isolation: src.Isolation, DBMS: src.DBMS, Comments: slices.Clone(src.Comments)}
	setup := 0
	for i, st := range src.Steps {
		if drop[i] {
			continue
		}
		if !setupKind(testcase.KindOf(st)) || !l.ranPlainly(i) {
			break
		}
		setup = i + 1
	}
	for i, st := range src.Steps[:setup] {
		if !drop[i] {
			c.Setup = append(c.Setup, st.SQL)
		}
	}
	var from []int // the index in src.Steps of each of c.Steps
	for i, st := range src.Steps[setup:] {
		if !drop[setup+i] {
			st.Line = 0
			c.Steps = append(c.Steps, st)
			from = append(from, setup+i)
		}
	}
	l.saveLevels(c, from)
	return c
}

// saveLevels gives case c's connections the levels their steps ran at
// (from[i] is the index of step i among the steps submitted). A
// connection's steps before any change run at the session's level; a
// change before its first step kept becomes its isolation.N header; after
// one, the steps that follow it go to a connection number no step uses,
// with that level as its header, and a comment says so: the case format
// gives each connection one level, and its header would otherwise claim
// the new level for the transactions that ran at the old one too.
func (l *Live) saveLevels(c *testcase.Case, from []int) {
	// change returns the index in l.changes of the latest change of
	// connection n made before step i was submitted, -1 for none.
	change := func(n, i int) int {
		at := -1
		for k, ch := range l.changes {
			if ch.conn == n && ch.from <= i {
				at = k
			}
		}
		return at
	}
	next := 1
	for _, st := range l.r.c.Steps {
		next = max(next, st.Conn+1)
	}
	for _, ch := range l.changes {
		next = max(next, ch.conn+1)
	}
	type segment struct{ conn, change int }
	number := map[segment]int{}
	taken := map[int]bool{}
	for i := range c.Steps {
		n := c.Steps[i].Conn
		seg := segment{n, change(n, from[i])}
		m, ok := number[seg]
		if !ok {
			m = n
			if taken[n] {
				m = next
				next++
				ch := l.changes[seg.change]
				c.Comments = append(c.Comments, fmt.Sprintf("Connection %d is the session's connection %d after \\isolation %d %s: a case gives each connection one level.", m, n, n, ch.level))
			}
			taken[n] = true
			number[seg] = m
			level := l.initial[n]
			if seg.change >= 0 {
				level = l.changes[seg.change].level
			}
			if level != "" {
				if c.ConnIsolation == nil {
					c.ConnIsolation = map[int]target.Level{}
				}
				c.ConnIsolation[m] = level
			}
		}
		c.Steps[i].Conn = m
	}
}

// setupKind says whether a statement may stand in a case's setup: one that
// creates or fills tables. A SET or SELECT stays a step on its connection.
func setupKind(k testcase.Kind) bool {
	switch k.Keyword {
	case "CREATE", "INSERT", "REPLACE", "ALTER", "DROP", "UPDATE", "DELETE":
		return true
	}
	return false
}

// ranPlainly says whether step i completed ok without blocking, outside a
// transaction of its own (it is among the first steps, before any BEGIN).
func (l *Live) ranPlainly(i int) bool {
	ok := false
	for _, ev := range l.r.events {
		if ev.Step != i {
			continue
		}
		if ev.Status != StatusOK || ev.Resumed {
			return false
		}
		ok = true
	}
	return ok
}

// Close ends every session (rolling back open transactions) and records
// the tables the statements created as txlab's.
func (l *Live) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	l.cancel()
	l.r.closeAll()
	if l.schema {
		ForgetSetup(l.r.t)
		return adopt(context.Background(), l.r.t, stepsSQL(l.r.c))
	}
	return nil
}

func (l *Live) open(n int) (*conn, error) {
	r := l.r
	if cn := r.conns[n]; cn != nil {
		return cn, nil
	}
	s, err := r.t.Open(l.ctx)
	if err != nil {
		return nil, fmt.Errorf("open connection %d: %w", n, err)
	}
	if lvl := r.c.LevelOf(n); lvl != "" {
		if err := s.SetIsolation(l.ctx, lvl); err != nil {
			s.Close()
			return nil, fmt.Errorf("connection %d: %w", n, err)
		}
	}
	cn := &conn{num: n, sess: s}
	r.conns[n] = cn
	r.order = append(r.order, cn)
	return cn, nil
}

func (l *Live) news() []Event {
	evs := slices.Clone(l.r.events[l.seen:])
	l.seen = len(l.r.events)
	return evs
}

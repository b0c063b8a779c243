// Package executor is txlab's execution protocol: it replays a case's submitted
// order on a target, one session per connection, and records the actual
// schedule — which statement ran, blocked, resumed, failed or was skipped, in
// the order the DBMS really completed them — and the final state.
//
// A statement is blocked when the target's lock-wait introspection says its
// session waits on a lock (milliseconds), or, where introspection is blind,
// when it has not completed within Options.BlockTimeout. A blocked
// connection's later statements queue behind it; when a blocked statement
// completes it is recorded as resumed at that point of the schedule. A
// statement that fails with class busy (SQLite, busy_timeout=0) is treated as
// blocked and retried whenever another statement completes.
package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/txlab/txlab/internal/crash"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// Status is the outcome of one schedule event.
type Status string

// Event statuses.
const (
	StatusOK      Status = "ok"
	StatusError   Status = "error"
	StatusBlocked Status = "blocked"
	StatusSkipped Status = "skipped"
)

// Event is one entry of the actual schedule.
type Event struct {
	Conn    int           `json:"conn"`
	SQL     string        `json:"sql"`
	Status  Status        `json:"status"`
	Resumed bool          `json:"resumed"`
	Columns []string      `json:"columns,omitempty"`
	Rows    []target.Row  `json:"rows"`
	Error   *target.Error `json:"error,omitempty"`
	// Step is the index of the statement in the case's steps; -1 for a
	// ROLLBACK the executor sent by itself after the DBMS aborted a
	// transaction or left one open after its COMMIT failed.
	Step int `json:"step"`
	// Kind is the step's kind as the case carried it (testcase.Kind);
	// read it with Kind.For(SQL). Zero for statements the executor sent
	// by itself and for events read back from JSON.
	Kind testcase.Kind `json:"-"`
	// Implicit marks that executor-sent ROLLBACK.
	Implicit bool `json:"implicit,omitempty"`
	// Sent is the text actually sent when an oracle rewrote the statement
	// (IsoRel's instrumentation); SQL stays the case's statement.
	Sent string `json:"sent,omitempty"`
	// Added marks a statement an oracle ran beside the case's own (a read
	// before a write, a BEGIN/COMMIT around it, the read of what an UPDATE
	// matched); its Step is that of the case statement it serves.
	Added bool `json:"added,omitempty"`
	// Affected is the number of rows a DML statement changed (-1 unknown).
	Affected int64 `json:"affected"`
	// Truncated counts the rows the statement returned that txlab did not
	// keep (target.Limits, per statement and per case): Rows is then the
	// result's first rows, and no oracle judges the case on it.
	Truncated int64 `json:"truncated,omitempty"`
	// ByTimeout marks a blocked event detected by the fallback timeout rather
	// than by asking the server.
	ByTimeout bool `json:"by_timeout,omitempty"`
	// Concurrent, when not 0, groups statements one COMMIT or ROLLBACK
	// released together: they ran at the same time on the server, so the
	// order they are recorded in (the order their results came back) is
	// one of the orders they may have taken effect in, not the order.
	Concurrent int `json:"concurrent,omitempty"`
}

// Options tune the protocol.
type Options struct {
	// Isolation, when set, overrides the case's isolation for every connection.
	Isolation target.Level
	// BlockTimeout is the fallback: a statement still running after it, while
	// introspection does not see it waiting, is taken as blocked (default 1s).
	BlockTimeout time.Duration
	// HangTimeout bounds the whole case; a case that has not finished by then
	// is reported as a hang (default 30s).
	HangTimeout time.Duration
	// Poll is the interval between lock-wait checks (default 1ms).
	Poll time.Duration
	// TrustCase lets a case's statements of kinds the scope check does not
	// know run (--trust-case); names outside txlab's database, server
	// administration and dynamic SQL are refused all the same.
	TrustCase bool
}

// DefaultHangTimeout bounds a case when Options.HangTimeout is not set.
const DefaultHangTimeout = 30 * time.Second

// Hang is the case's bound: HangTimeout, or DefaultHangTimeout.
func (o Options) Hang() time.Duration {
	if o.HangTimeout > 0 {
		return o.HangTimeout
	}
	return DefaultHangTimeout
}

func (o Options) withDefaults() Options {
	if o.BlockTimeout <= 0 {
		o.BlockTimeout = time.Second
	}
	o.HangTimeout = o.Hang()
	if o.Poll <= 0 {
		o.Poll = time.Millisecond
	}
	return o
}

// Result is what running a case produced.
type Result struct {
	Setup  []Event // the setup statements, in order (Conn 0)
	Events []Event // the actual schedule
	Final  target.State
	Levels map[int]target.Level // isolation per connection ("" = DBMS default)
	// Concrete is the level every connection ran at, the DBMS default
	// written out (ConnLevel, Concrete); read it with ConnLevels, or
	// Level for the one level the run is judged at.
	Concrete map[int]target.Level `json:"-"`
	// Default is the DBMS default level on the target the case ran on:
	// the level of a run with no connections (Level).
	Default target.Level `json:"-"`
	Hang    bool         // the case did not finish within HangTimeout
	Elapsed time.Duration
	// Reused says the setup emptied the previous run's tables (same
	// definitions) instead of dropping and re-creating them.
	Reused bool
	// Notes are an oracle's remarks on the run that a user should see with
	// it, e.g. the statements IsoRel ran without instrumentation. The
	// executor leaves it empty.
	Notes []string
	// Truncated says why the execution is not whole, "" when it is: a
	// statement returned more rows than txlab keeps, or the final state was
	// larger (target.Limits; Final is then nil). An oracle that compares
	// results cannot judge such a case, and says it is not judged.
	Truncated string `json:"-"`
}

// TruncatedReason is the short reason (oracle.Judgement.Undecided) every
// oracle gives for a case it does not judge because a result, or the
// final state, was larger than txlab keeps (Result.Truncated).
const TruncatedReason = "result too large to keep"

// caseBudget is the kept bytes of one case's results taken together:
// each statement is bounded by the adapter (target.ReadRows), and past
// this the executor drops the rows of later results too, so that a case
// of many large SELECTs keeps no more than one.
func caseBudget() int64 { return target.CurrentLimits().Bytes }

// bound drops the rows of ev that the case's budget has no room for
// (the budget's kept bytes are *kept) and, when ev is not whole, says so
// in res.Truncated (the first such statement only).
func bound(res *Result, ev *Event, kept *int64) {
	if ev.Rows != nil {
		budget := caseBudget()
		for i, row := range ev.Rows {
			size := target.RowSize(row)
			if *kept+size > budget {
				ev.Truncated += int64(len(ev.Rows) - i)
				ev.Rows = ev.Rows[:i:i]
				break
			}
			*kept += size
		}
	}
	if e := ev.Error; e != nil && e.Oversize && res.Truncated == "" {
		what := fmt.Sprintf("connection %d's statement %d", ev.Conn, ev.Step+1)
		if ev.Conn == 0 {
			what = fmt.Sprintf("setup statement %d", ev.Step+1)
		}
		res.Truncated = fmt.Sprintf("%s: %s", what, e.Message)
	}
	if ev.Truncated > 0 && res.Truncated == "" {
		lim := target.CurrentLimits()
		what := fmt.Sprintf("connection %d's statement %d", ev.Conn, ev.Step+1)
		if ev.Conn == 0 {
			what = fmt.Sprintf("setup statement %d", ev.Step+1)
		}
		res.Truncated = fmt.Sprintf("%s returned %d rows, of which txlab kept the first %d (at most %d rows and %s per statement, %s per case: --max-rows, --max-result-bytes)",
			what, int64(len(ev.Rows))+ev.Truncated, len(ev.Rows), lim.Rows, target.FormatBytes(lim.Bytes), target.FormatBytes(caseBudget()))
	}
}

// SetupError reports that a setup statement failed; the case could not run.
type SetupError struct {
	Index int
	SQL   string
	Err   error
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("setup statement %d failed: %v (%s)", e.Index+1, e.Err, e.SQL)
}

func (e *SetupError) Unwrap() error { return e.Err }

// completion is what a statement's goroutine delivers, with when it
// returned.
type completion struct {
	res *target.Result
	err error
	at  time.Time
}

// conn is the executor's view of one connection.
type conn struct {
	num      int
	sess     target.Session
	inflight *inflight
	backlog  []int // steps submitted while the connection was blocked
	inTxn    bool  // inside an explicit transaction
	aborted  bool  // the DBMS aborted the transaction: skip until its end
	level    target.Level
}

type inflight struct {
	step    int
	sql     string
	kind    testcase.Kind // the step's kind, decided when the case was parsed or generated
	started time.Time
	done    chan completion
	blocked bool
	busy    bool        // blocked by a busy error: retry instead of waiting
	early   *completion // taken from done before its turn to be recorded
}

// result returns the statement's completion if it is available.
func (f *inflight) result() (completion, bool) {
	if f.early != nil {
		return *f.early, true
	}
	select {
	case c := <-f.done:
		return c, true
	default:
		return completion{}, false
	}
}

type runner struct {
	t      target.Target
	c      *testcase.Case
	opt    Options
	conns  map[int]*conn
	order  []*conn
	events []Event
	hangAt time.Time
	groups int // Concurrent groups handed out
	// res is the run's result, for bound; kept counts the bytes of rows
	// the case's events keep.
	res  *Result
	kept int64
}

// Run resets txlab's tables, runs the case's setup in autocommit, then the
// submitted order through the protocol, and dumps the final state.
//
// The whole run is bounded by HangTimeout: a case still unfinished then is
// a hang (Result.Hang), and so is one whose own queries (the reset, the
// lock-wait introspection, the dump) ran past it — while the server still
// answers a trivial query. When it does not, Run returns a
// *target.FrozenError: the server, not the case, is at fault.
func Run(ctx context.Context, t target.Target, c *testcase.Case, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	start := time.Now()
	hangAt := start.Add(opt.HangTimeout)
	ping := target.PingTimeout(opt.HangTimeout)
	res, err := Watch(ctx, t, hangAt, ping, func(ctx context.Context) (*Result, error) {
		return run(ctx, t, c, opt, start, hangAt)
	})
	if res == nil {
		res = &Result{Levels: map[int]target.Level{}, Default: t.DefaultLevel(), Elapsed: time.Since(start)}
	}
	if target.IsFrozen(err) || ctx.Err() != nil {
		return res, err
	}
	// Past the bound, whatever failed (a setup statement, the reset) may
	// have failed because the server stopped answering.
	if (err != nil || res.Hang) && !time.Now().Before(hangAt) {
		if aerr := target.CheckAlive(ctx, t, ping); aerr != nil {
			return res, aerr
		}
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		// One of txlab's own queries ran past the case's bound.
		res.Hang, err = true, nil
	}
	return res, err
}

// run is Run's work, within hangAt.
func run(ctx context.Context, t target.Target, c *testcase.Case, opt Options, start, hangAt time.Time) (*Result, error) {
	res := &Result{Levels: map[int]target.Level{}, Concrete: map[int]target.Level{}, Default: t.DefaultLevel()}
	if err := inScope(t, c, opt.TrustCase); err != nil {
		return res, err
	}
	// txlab's own work before the steps (the reset, the setup, opening
	// the sessions) ends by the case's bound too.
	bctx, bcancel := context.WithDeadline(ctx, hangAt)
	defer bcancel()
	// The adapters read every statement's result within what is left of
	// the case's budget (bound trims to it exactly).
	budget := target.NewBudget(caseBudget())
	bctx = target.WithBudget(bctx, budget)
	var err error
	if res.Setup, res.Reused, err = prepare(bctx, t, c.Setup); err != nil {
		return res, err
	}
	var kept int64
	for i := range res.Setup {
		bound(res, &res.Setup[i], &kept)
	}

	// Statements run under their own context, cancelled before the sessions
	// are closed, so that a hung statement cannot hold up the end of the run.
	rctx, cancel := context.WithCancel(target.WithBudget(ctx, budget))
	r := &runner{t: t, c: c, opt: opt, conns: map[int]*conn{}, hangAt: hangAt, res: res, kept: kept}
	defer func() {
		cancel()
		r.closeAll()
	}()
	for _, n := range c.Conns() {
		s, err := t.Open(bctx)
		if err != nil {
			return res, fmt.Errorf("open connection %d: %w", n, err)
		}
		cn := &conn{num: n, sess: s}
		r.conns[n] = cn
		r.order = append(r.order, cn)
		lvl := ConnLevel(c, n, opt)
		res.Levels[n] = lvl
		res.Concrete[n] = Concrete(lvl, res.Default)
		cn.level = lvl
		if lvl != "" {
			if err := s.SetIsolation(bctx, lvl); err != nil {
				return res, fmt.Errorf("connection %d: %w", n, err)
			}
		}
	}

	err = r.run(rctx)
	// Only a schema statement among the steps can have created a table or
	// changed one's definition.
	schemaSteps := false
	for _, st := range c.Steps {
		schemaSteps = schemaSteps || testcase.KindOf(st).Schema
	}
	if schemaSteps {
		ForgetSetup(t)
	}
	res.Events = r.events
	res.Elapsed = time.Since(start)
	if err != nil {
		// A table the steps created before the hang or the failure is
		// txlab's too, or the next case would refuse the schema. The
		// statements still running end with their context first, as
		// closeAll expects (else it waits closeGrace for each of them).
		res.Hang = errors.Is(err, errHang)
		cancel()
		r.closeAll()
		if schemaSteps {
			if aerr := adopt(ctx, t, stepsSQL(c)); aerr != nil {
				if res.Hang {
					return res, fmt.Errorf("recording the tables the steps created: %w", aerr)
				}
				return res, fmt.Errorf("%w; recording the tables the steps created: %v", err, aerr)
			}
		}
		if res.Hang {
			return res, nil
		}
		return res, err
	}
	// End every session before the dump, so that a transaction the case left
	// open is rolled back and holds no locks.
	r.closeAll()
	// A table the steps created is txlab's too.
	if schemaSteps {
		if err := adopt(ctx, t, stepsSQL(c)); err != nil {
			return res, err
		}
	}
	dctx, dcancel := context.WithTimeout(ctx, opt.HangTimeout)
	defer dcancel()
	if res.Final, err = t.Dump(dctx); target.IsTruncated(err) {
		// Not a failure: the case ran, and is not judged.
		if res.Truncated == "" {
			res.Truncated = err.Error()
		}
		res.Final = nil
	} else if err != nil {
		return res, fmt.Errorf("dump final state: %w", err)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

var errHang = errors.New("case did not finish in time")

// closeGrace bounds the wait for a cancelled statement to return.
const closeGrace = 5 * time.Second

// closeAll ends every session. Called after the statements' context is
// cancelled, it first lets statements still running return (adapters kill
// them on the server), so that no session is closed under a running Exec.
func (r *runner) closeAll() {
	for _, cn := range r.order {
		if f := cn.inflight; f != nil && f.early == nil && !f.busy {
			select {
			case c := <-f.done:
				f.early = &c
			case <-time.After(closeGrace):
			}
		}
		if cn.sess != nil {
			cn.sess.Close()
			cn.sess = nil
		}
	}
}

func (r *runner) run(ctx context.Context) error {
	for i, st := range r.c.Steps {
		cn := r.conns[st.Conn]
		if cn.inflight != nil {
			cn.backlog = append(cn.backlog, i)
			continue
		}
		if err := r.submit(ctx, cn, i); err != nil {
			return err
		}
		if err := r.settle(ctx); err != nil {
			return err
		}
	}
	// Everything is submitted; wait for the blocked connections to finish.
	for r.unfinished() {
		if err := r.waitAny(ctx); err != nil {
			return err
		}
		if err := r.settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) unfinished() bool {
	for _, cn := range r.order {
		if cn.inflight != nil || len(cn.backlog) > 0 {
			return true
		}
	}
	return false
}

// submit sends step i on cn and waits until it completes or is known blocked;
// after a completion it drains the connection's backlog the same way.
func (r *runner) submit(ctx context.Context, cn *conn, i int) error {
	sql := r.c.Steps[i].SQL
	kind := testcase.KindOf(r.c.Steps[i])
	k := kind.Control
	if cn.aborted {
		r.events = append(r.events, Event{Conn: cn.num, SQL: sql, Status: StatusSkipped, Step: i, Kind: kind, Affected: -1})
		if k == testcase.Commit || k == testcase.Rollback {
			cn.aborted, cn.inTxn = false, false
		}
		return r.drain(ctx, cn)
	}
	if k == testcase.Begin {
		cn.inTxn = true
	}
	cn.inflight = r.start(ctx, cn, i, sql, kind)
	return r.await(ctx, cn)
}

func (r *runner) start(ctx context.Context, cn *conn, step int, sql string, kind testcase.Kind) *inflight {
	f := &inflight{step: step, sql: sql, kind: kind, started: time.Now(), done: make(chan completion, 1)}
	sess := cn.sess
	go func() {
		// A panic in an adapter fails the case, with the run's cleanup.
		res, err := crash.Call(func() (*target.Result, error) { return sess.Exec(ctx, sql) })
		f.done <- completion{res, err, time.Now()}
	}()
	return f
}

// await waits for cn's in-flight statement to complete or to block.
func (r *runner) await(ctx context.Context, cn *conn) error {
	f := cn.inflight
	timer := time.NewTimer(r.opt.Poll)
	defer timer.Stop()
	for {
		select {
		case c := <-f.done:
			return r.finish(ctx, cn, c)
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		waiting, byTimeout, err := r.isWaiting(ctx, cn)
		if err != nil {
			return err
		}
		if waiting {
			f.blocked = true
			r.events = append(r.events, Event{Conn: cn.num, SQL: f.sql, Status: StatusBlocked, Step: f.step, Kind: f.kind, Affected: -1, ByTimeout: byTimeout})
			return nil
		}
		timer.Reset(r.opt.Poll)
	}
}

// isWaiting asks the target whether cn's session waits on a lock, falling
// back to the block timeout where the target cannot tell or does not see it.
func (r *runner) isWaiting(ctx context.Context, cn *conn) (waiting, byTimeout bool, err error) {
	waiting, _, err = r.lockWait(ctx, cn)
	if err != nil || waiting {
		return waiting, false, err
	}
	if time.Since(cn.inflight.started) >= r.opt.BlockTimeout {
		return true, true, nil
	}
	return false, false, nil
}

// finish records cn's completed statement c together with the blocked
// statements of other connections that completed meanwhile, in the order the
// DBMS most likely completed them, and then runs cn's queue. Statements that
// finished meanwhile usually finished because of c (its transaction ended, or
// failed and released its locks) and come after it; but one whose own
// transaction was aborted (a deadlock victim) is what let c finish, and comes
// first — and so does its queue, as if its error had been seen first.
func (r *runner) finish(ctx context.Context, cn *conn, c completion) error {
	var victims []*conn
	if cn.inflight.kind.Control == testcase.NotControl && !abortsTxn(c.err) {
		// Also when c never showed as blocked but may have waited for a
		// lock: a deadlock the server resolved at once (its victim
		// another connection) let it finish before a lock wait could be
		// seen, and on a loaded machine the victim's error reached txlab
		// after c's result.
		if cn.inflight.blocked || mayLock(cn.inflight.kind, cn.level) {
			var err error
			if victims, err = r.awaitVictims(ctx, cn); err != nil {
				return err
			}
		}
		v, err := r.recordFinished(ctx, cn, abortsTxn)
		if err != nil {
			return err
		}
		victims = append(victims, v...)
	}
	return r.complete(ctx, cn, c, victims...)
}

// mayLock says a statement may wait for row locks: a write, a locking
// read, or any statement at serializable (InnoDB's plain SELECTs lock
// there). A plain read below it reads a snapshot.
func mayLock(k testcase.Kind, level target.Level) bool {
	return k.Changes || k.CTEWrite || level == target.Serializable || k.LockingRead
}

// awaitVictims runs when a statement of except completed (resumed, or
// never seen waiting): any other blocked statement the server no longer
// sees waiting is about to deliver its result, and a deadlock victim's
// error (whose abort let except finish) can reach txlab after except's
// result — two connections race. Waiting
// for those results, and recording the victims at once, keeps the victim
// first in the schedule on a loaded machine; other results are kept for
// settle to record in their turn.
func (r *runner) awaitVictims(ctx context.Context, except *conn) ([]*conn, error) {
	var victims, candidates []*conn
	var ids []string
	for _, cn := range r.order {
		f := cn.inflight
		if cn == except || f == nil || !f.blocked || f.busy || f.early != nil {
			continue
		}
		candidates = append(candidates, cn)
		ids = append(ids, cn.sess.ID())
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	// One question for all of them: this runs after every statement
	// that may wait for a lock.
	waiting, blind, err := r.lockWaits(ctx, ids)
	if blind || err != nil {
		return nil, err
	}
	for i, cn := range candidates {
		f := cn.inflight
		if waiting[ids[i]] {
			continue
		}
		timer := time.NewTimer(r.opt.BlockTimeout)
		select {
		case c := <-f.done:
			timer.Stop()
			if abortsTxn(c.err) {
				if err := r.record(ctx, cn, c); err != nil {
					return nil, err
				}
				victims = append(victims, cn)
			} else {
				f.early = &c
			}
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		}
	}
	return victims, nil
}

// complete records a finished statement and then runs the connection's
// queued statements. When the statement released its transaction's locks,
// the statements waiting for them resume first: they complete before the
// connection's next statement is submitted. The queues of first (deadlock
// victims whose abort let cn finish) run before cn's.
func (r *runner) complete(ctx context.Context, cn *conn, c completion, first ...*conn) error {
	k := cn.inflight.kind.Control
	if err := r.record(ctx, cn, c); err != nil {
		return err
	}
	if k == testcase.Commit || k == testcase.Rollback || abortsTxn(c.err) {
		if err := r.awaitResumptions(ctx, cn); err != nil {
			return err
		}
	} else if _, err := r.recordFinished(ctx, cn, nil); err != nil {
		return err
	}
	for _, v := range first {
		if err := r.drain(ctx, v); err != nil {
			return err
		}
	}
	return r.drain(ctx, cn)
}

// awaitResumptions gives every lock-blocked statement of the other
// connections the chance to resume: it waits until each has completed
// (and records it) or is seen waiting again, bounded by the block timeout.
//
// The resumed statements are recorded in the order their results came back,
// and when there are several they are marked Concurrent: which of them took
// effect first is the server's choice.
func (r *runner) awaitResumptions(ctx context.Context, except *conn) error {
	deadline := time.Now().Add(r.opt.BlockTimeout)
	type resumed struct {
		cn *conn
		c  completion
	}
	var rs []resumed
	for _, cn := range r.order {
		f := cn.inflight
		if cn == except || f == nil || !f.blocked || f.busy {
			continue
		}
		c, ok, err := r.waitResume(ctx, cn, deadline)
		if err != nil {
			return err
		}
		if ok {
			rs = append(rs, resumed{cn, c})
		}
	}
	slices.SortStableFunc(rs, func(a, b resumed) int { return a.c.at.Compare(b.c.at) })
	group := 0
	if len(rs) > 1 {
		r.groups++
		group = r.groups
	}
	for _, x := range rs {
		at := len(r.events)
		if err := r.record(ctx, x.cn, x.c); err != nil {
			return err
		}
		if at < len(r.events) {
			r.events[at].Concurrent = group
		}
	}
	return nil
}

// record enters a finished statement into the schedule and applies its
// consequences for the connection's transaction.
func (r *runner) record(ctx context.Context, cn *conn, c completion) error {
	f := cn.inflight
	if te := target.AsError(c.err); te != nil && te.Class == target.ClassBusy {
		// SQLite never waits: a busy statement did nothing and is retried
		// whenever another statement completes.
		if !f.blocked {
			f.blocked = true
			r.events = append(r.events, Event{Conn: cn.num, SQL: f.sql, Status: StatusBlocked, Step: f.step, Kind: f.kind, Affected: -1})
		}
		f.busy = true
		return nil
	}
	if c.err != nil && target.AsError(c.err) == nil {
		// The statement has returned: closeAll must not wait for it.
		cn.inflight = nil
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("connection %d: %s: %w", cn.num, f.sql, c.err)
	}
	cn.inflight = nil
	ev := Event{Conn: cn.num, SQL: f.sql, Step: f.step, Kind: f.kind, Resumed: f.blocked, Affected: -1}
	fill(&ev, c.res, c.err)
	bound(r.res, &ev, &r.kept)
	r.events = append(r.events, ev)

	k := f.kind.Control
	wasInTxn := cn.inTxn
	if k == testcase.Commit || k == testcase.Rollback {
		cn.inTxn = false
	}
	te := target.AsError(c.err)
	switch {
	case te != nil && te.RolledBack && cn.inTxn:
		// The DBMS aborted the transaction: make sure it is rolled back and
		// skip its remaining statements up to its COMMIT or ROLLBACK.
		r.rollback(ctx, cn)
		cn.aborted = true
	case te != nil && !te.RolledBack && k == testcase.Commit && wasInTxn:
		// A failed COMMIT ends its transaction uncommitted: that is what
		// the schedule, the model and every oracle take it to mean. Where
		// the DBMS has not ended it (SQLite keeps the transaction open
		// when COMMIT fails a deferred foreign key, "SQLite Foreign Key
		// Support" 4.2, so that the application may fix the rows and
		// commit again), txlab rolls it back, as an application giving
		// up would; else its locks stay until the session closes, and
		// every other connection's write waits out the hang bound.
		r.rollback(ctx, cn)
	}
	return nil
}

// rollback sends the ROLLBACK that ends cn's transaction after the DBMS
// aborted it or a COMMIT failed, and records it as an implicit event.
func (r *runner) rollback(ctx context.Context, cn *conn) {
	rctx, cancel := context.WithDeadline(ctx, r.hangAt)
	_, rbErr := cn.sess.Exec(rctx, "ROLLBACK")
	cancel()
	rb := Event{Conn: cn.num, SQL: "ROLLBACK", Step: -1, Implicit: true, Affected: -1}
	fill(&rb, nil, rbErr)
	r.events = append(r.events, rb)
}

// recordFinished records the blocked statements of connections other than
// except whose results are already available (and, when only is set, satisfy
// it), without running their queues; it returns their connections.
func (r *runner) recordFinished(ctx context.Context, except *conn, only func(error) bool) ([]*conn, error) {
	var recorded []*conn
	for _, cn := range r.order {
		f := cn.inflight
		if cn == except || f == nil || !f.blocked || f.busy || f.early != nil {
			continue
		}
		select {
		case c := <-f.done:
			if only != nil && !only(c.err) {
				f.early = &c // not now: settle records it in its turn
				continue
			}
			if err := r.record(ctx, cn, c); err != nil {
				return nil, err
			}
			recorded = append(recorded, cn)
		default:
		}
	}
	return recorded, nil
}

// abortsTxn reports whether err aborted its transaction.
func abortsTxn(err error) bool {
	te := target.AsError(err)
	return te != nil && te.RolledBack
}

// drain submits the connection's queued statements while it is not blocked.
func (r *runner) drain(ctx context.Context, cn *conn) error {
	for cn.inflight == nil && len(cn.backlog) > 0 {
		next := cn.backlog[0]
		cn.backlog = cn.backlog[1:]
		if err := r.submit(ctx, cn, next); err != nil {
			return err
		}
	}
	return nil
}

// settle brings every blocked connection up to date after a completion: a
// statement that completed is recorded as resumed (and its backlog runs),
// one that still waits stays blocked, and busy statements are retried.
// It repeats until nothing changes, since each resumption can release
// further locks.
func (r *runner) settle(ctx context.Context) error {
	for changed := true; changed; {
		changed = false
		for _, cn := range r.order {
			f := cn.inflight
			if f == nil && len(cn.backlog) > 0 {
				// Resumed while another statement was in flight: run its
				// queued statements now.
				if err := r.drain(ctx, cn); err != nil {
					return err
				}
				changed = true
				continue
			}
			if f == nil || !f.blocked {
				continue
			}
			progressed, err := r.recheck(ctx, cn)
			if err != nil {
				return err
			}
			changed = changed || progressed
		}
	}
	return nil
}

// recheck looks at one blocked connection; it reports whether the connection
// made progress (completed its statement).
func (r *runner) recheck(ctx context.Context, cn *conn) (bool, error) {
	f := cn.inflight
	if f.busy {
		f.busy = false
		res, err := cn.sess.Exec(ctx, f.sql)
		if err := r.complete(ctx, cn, completion{res, err, time.Now()}); err != nil {
			return false, err
		}
		return cn.inflight != f, nil
	}
	// The lock holder may just have released its locks.
	c, ok, err := r.waitResume(ctx, cn, time.Now().Add(r.opt.BlockTimeout))
	if err != nil || !ok {
		return false, err
	}
	return true, r.complete(ctx, cn, c)
}

// waitResume waits until cn's blocked statement completes (ok) or is seen
// waiting on a lock again, or the deadline passes (not ok). Where the target
// cannot tell, it does not wait: waitAny picks the completion up later.
func (r *runner) waitResume(ctx context.Context, cn *conn, deadline time.Time) (completion, bool, error) {
	f := cn.inflight
	seenWaiting := false
	for {
		if c, ok := f.result(); ok {
			return c, true, nil
		}
		waiting, blind, err := r.lockWait(ctx, cn)
		if err != nil {
			return completion{}, false, err
		}
		// A wait seen once right after locks were released may be the
		// server's view lagging the grant: believe it when seen twice.
		if (waiting && seenWaiting) || blind || time.Now().After(deadline) {
			c, ok := f.result()
			return c, ok, nil
		}
		seenWaiting = waiting
		select {
		case c := <-f.done:
			return c, true, nil
		case <-ctx.Done():
			return completion{}, false, ctx.Err()
		case <-time.After(r.opt.Poll):
		}
	}
}

// lockWait asks the target whether cn's session waits on a lock; blind is
// true when the target cannot tell.
func (r *runner) lockWait(ctx context.Context, cn *conn) (waiting, blind bool, err error) {
	id := cn.sess.ID()
	w, blind, err := r.lockWaits(ctx, []string{id})
	return w[id], blind, err
}

// lockWaits asks the server which of the sessions ids wait for a lock;
// blind when it cannot tell.
//
// The question ends by the case's bound: a server that does not answer it
// makes the case a hang (and Run then asks whether the server is frozen).
func (r *runner) lockWaits(ctx context.Context, ids []string) (waiting map[string]bool, blind bool, err error) {
	wctx, cancel := context.WithDeadline(ctx, r.hangAt)
	defer cancel()
	w, err := r.t.Waiting(wctx, ids)
	if errors.Is(err, target.ErrNoIntrospection) {
		return nil, true, nil
	}
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil, false, errHang
	}
	if err != nil {
		return nil, false, fmt.Errorf("lock-wait introspection: %w", err)
	}
	return w, false, nil
}

// waitAny blocks until some in-flight statement completes, the hang timeout
// passes or ctx ends. It is used once every step has been submitted, or
// would be, and only blocked statements remain.
func (r *runner) waitAny(ctx context.Context) error {
	tick := time.NewTicker(r.opt.Poll)
	defer tick.Stop()
	for {
		for _, cn := range r.order {
			if cn.inflight == nil && len(cn.backlog) > 0 {
				return nil // settle runs its queue
			}
		}
		if progressed, err := r.progress(ctx); progressed || err != nil {
			return err
		}
		if time.Now().After(r.hangAt) {
			return errHang
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// progress lets one blocked connection move on without submitting
// anything: it retries busy statements until one completes, or records the
// first statement whose result has come back. It reports whether a
// connection made progress.
func (r *runner) progress(ctx context.Context) (bool, error) {
	for _, cn := range r.order {
		f := cn.inflight
		if f == nil {
			continue
		}
		if f.busy {
			// Every remaining statement is busy: nothing else will run to
			// release the lock, so retrying is the only way forward.
			if _, err := r.recheck(ctx, cn); err != nil {
				return false, err
			}
			if cn.inflight != f {
				return true, nil
			}
			continue
		}
		if c, ok := f.result(); ok {
			return true, r.finish(ctx, cn, c)
		}
	}
	return false, nil
}

func fill(ev *Event, res *target.Result, err error) {
	if err != nil {
		ev.Status = StatusError
		if te := target.AsError(err); te != nil {
			ev.Error = te
		} else {
			ev.Error = &target.Error{Class: target.ClassOther, Message: err.Error()}
		}
		return
	}
	ev.Status = StatusOK
	if res != nil {
		ev.Columns = res.Columns
		ev.Rows = res.Rows
		ev.Affected = res.Affected
		ev.Truncated = res.Truncated
	}
}

// inScope refuses a case with a statement that could change something
// outside txlab's own database (see package target/scope): the case's SQL
// is the user's, and txlab's promise covers it too.
// ScopeError reports a case refused by that check; it does not run.
type ScopeError struct{ msg string }

func (e *ScopeError) Error() string { return e.msg }

func inScope(t target.Target, c *testcase.Case, trust bool) error {
	rules := scope.For(t.Info(), trust)
	for i, s := range c.Setup {
		if err := scope.Check(s, rules); err != nil {
			return &ScopeError{fmt.Sprintf("setup statement %d refused: %v", i+1, err)}
		}
	}
	for i, s := range c.Steps {
		if err := scope.Check(s.SQL, rules); err != nil {
			return &ScopeError{fmt.Sprintf("step %d refused: %v", i+1, err)}
		}
	}
	return nil
}

package executor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// Prepare resets txlab's tables on t, runs stmts in autocommit on one
// session and records the tables as txlab's. The tables are recorded after
// a failed statement too: what it created before failing is txlab's, and
// the next run must not refuse it as a stranger's. The events say what each
// statement did; a failed statement is a *SetupError.
//
// When stmts create the same tables as the previous Prepare on t, and
// nothing has changed them since but row statements, the tables are emptied
// in place (TRUNCATE) and only stmts' row statements run again: the same
// state, for a third of the server's work on InnoDB.
func Prepare(ctx context.Context, t target.Target, stmts []string) ([]Event, error) {
	evs, _, err := prepare(ctx, t, stmts)
	return evs, err
}

// prepare is Prepare, also saying whether the tables were reused.
func prepare(ctx context.Context, t target.Target, stmts []string) ([]Event, bool, error) {
	if evs, ok := reuseSetup(ctx, t, stmts); ok {
		return evs, true, nil
	}
	if err := t.Reset(ctx); err != nil {
		return nil, false, err
	}
	evs, err := runSetup(ctx, t, stmts)
	if aerr := adopt(ctx, t, stmts); aerr != nil {
		if err != nil {
			return evs, false, fmt.Errorf("%w; recording the tables it created: %v", err, aerr)
		}
		return evs, false, aerr
	}
	if err == nil {
		rememberSetup(ctx, t, stmts, evs)
	}
	return evs, false, err
}

// adopt records as txlab's the tables that stmts created, even when ctx
// has just ended (a campaign's deadline in the middle of a setup): a table
// created and left unrecorded would make every later run refuse the schema.
func adopt(ctx context.Context, t target.Target, stmts []string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return t.Adopt(ctx, scope.Created(t.Info().Dialect, stmts))
}

// stepsSQL returns the statements of c's steps.
func stepsSQL(c *testcase.Case) []string {
	out := make([]string, len(c.Steps))
	for i, st := range c.Steps {
		out[i] = st.SQL
	}
	return out
}

func runSetup(ctx context.Context, t target.Target, stmts []string) ([]Event, error) {
	if len(stmts) == 0 {
		return nil, nil
	}
	s, err := t.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("open setup connection: %w", err)
	}
	defer s.Close()
	var evs []Event
	for i, sql := range stmts {
		out, err := s.Exec(ctx, sql)
		ev := Event{Conn: 0, SQL: sql, Step: i, Affected: -1}
		fill(&ev, out, err)
		evs = append(evs, ev)
		if err != nil {
			return evs, &SetupError{Index: i, SQL: sql, Err: err}
		}
	}
	return evs, nil
}

// Client is the oracle's side of a free-running session: it says what each
// transaction runs and records what happened; the executor owns the
// session, its level, reconnection and backoff.
type Client interface {
	// Txn runs the client's n-th transaction (from 0) on c. class is the
	// error class that ended it ("" when none; contention classes make the
	// executor back off before the next one); done says the client has no
	// more transactions; a non-nil err stops the whole run.
	Txn(ctx context.Context, c *Conn, n int) (class string, done bool, err error)
}

// FreeOptions configure Free.
type FreeOptions struct {
	// Sessions is the number of concurrent sessions (at least 1).
	Sessions int
	// Level is set on every session; "" keeps the DBMS default.
	Level target.Level
	// Duration stops the sessions after their current transaction once it
	// has passed; 0 = no limit.
	Duration time.Duration
	// Txns stops the run after that many transactions in all; 0 = no limit.
	Txns int
	// Reconnect replaces a session whose connection was lost with a new
	// one, under a new session number; without it a lost connection ends
	// the run with an error.
	Reconnect bool
	// FirstSession numbers the sessions: worker i starts as session
	// FirstSession+i; replacements take numbers after those. Default 1.
	FirstSession int
	// Seed seeds the backoff jitter.
	Seed uint64
	// NewClient gives worker i (from 0) its client.
	NewClient func(worker int) Client
}

// FreeStats summarise a free run.
type FreeStats struct {
	// Reconnects counts sessions replaced after a lost connection.
	Reconnects int
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
}

// Conn is one free-running session as a client sees it.
type Conn struct {
	sess   target.Session
	num    int
	level  target.Level
	broken bool
}

// Session is the session's number; a replaced session gets a new one.
func (c *Conn) Session() int { return c.num }

// Level is the isolation level the session runs at.
func (c *Conn) Level() target.Level { return c.level }

// Exec runs one statement. A DBMS error comes back as te, with the session
// still usable; err is set (te too, when the error has a class) when the
// connection was lost or the error has no class (a cancelled context): the
// session is then broken, and the executor replaces it or ends the run.
func (c *Conn) Exec(ctx context.Context, sql string) (res *target.Result, te *target.Error, err error) {
	res, err = c.sess.Exec(ctx, sql)
	if err == nil {
		return res, nil, nil
	}
	te = target.AsError(err)
	if te == nil || te.Class == target.ClassConnection {
		c.broken = true
		return nil, te, err
	}
	return nil, te, nil
}

// SetIsolation sets the level of the session's next transactions without
// changing Level, the level the session runs at: a client that needs one
// transaction at another level sets it back to Level after it.
func (c *Conn) SetIsolation(ctx context.Context, l target.Level) error {
	err := c.sess.SetIsolation(ctx, l)
	if te := target.AsError(err); err != nil && (te == nil || te.Class == target.ClassConnection) && !errors.As(err, new(*target.UnsupportedLevelError)) {
		c.broken = true
	}
	return err
}

// Rollback ends a failed transaction, within 5 s even when ctx is done; if
// even that fails, the session is broken.
func (c *Conn) Rollback(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := c.sess.Exec(rctx, "ROLLBACK"); err != nil {
		c.broken = true
	}
}

// Free runs opt.Sessions sessions of t concurrently, each running its
// client's transactions until the client is done, opt.Duration has passed,
// opt.Txns transactions have run, ctx is cancelled or a client fails (the
// others then stop after their current transaction). It returns ctx's error
// when ctx was cancelled, the first fatal error otherwise.
func Free(ctx context.Context, t target.Target, opt FreeOptions) (FreeStats, error) {
	if opt.Sessions < 1 {
		return FreeStats{}, fmt.Errorf("free run: %d sessions", opt.Sessions)
	}
	if opt.NewClient == nil {
		return FreeStats{}, errNoClient
	}
	if opt.FirstSession == 0 {
		opt.FirstSession = 1
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	f := &free{t: t, opt: &opt}
	f.nextSess.Store(int64(opt.FirstSession + opt.Sessions))
	if opt.Duration > 0 {
		timer := time.AfterFunc(opt.Duration, func() { f.stop.Store(true) })
		defer timer.Stop()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range opt.Sessions {
		w := &worker{free: f, num: opt.FirstSession + i, client: opt.NewClient(i),
			rng: rand.New(rand.NewPCG(opt.Seed, uint64(i)+1))}
		wg.Go(func() {
			defer w.close()
			if err := w.run(runCtx); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	st := FreeStats{Reconnects: int(f.reconnects.Load()), Elapsed: time.Since(start)}
	return st, context.Cause(runCtx)
}

// free is the state a free run's workers share.
type free struct {
	t          target.Target
	opt        *FreeOptions
	stop       atomic.Bool // Duration has passed
	claimed    atomic.Int64
	nextSess   atomic.Int64
	reconnects atomic.Int64
}

// worker drives one session.
type worker struct {
	*free
	num    int // the session number of the next session opened
	client Client
	conn   *Conn
	rng    *rand.Rand
	busy   int // consecutive contention failures, for backoff
}

func (w *worker) run(ctx context.Context) error {
	for n := 0; !w.stop.Load() && ctx.Err() == nil; n++ {
		if w.opt.Txns > 0 && w.claimed.Add(1) > int64(w.opt.Txns) {
			return nil
		}
		if w.conn == nil {
			if err := w.open(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		class, done, err := w.client.Txn(ctx, w.conn, n)
		if err != nil {
			return err
		}
		if w.conn.broken {
			if !w.opt.Reconnect && ctx.Err() == nil {
				return fmt.Errorf("session %d: the connection was lost", w.conn.num)
			}
			w.close()
			w.reconnects.Add(1)
			w.num = int(w.nextSess.Add(1) - 1)
		}
		if done {
			return nil
		}
		w.backoff(class)
	}
	return nil
}

// openPatience bounds the retries of a session open that found the
// database busy.
const openPatience = 5 * time.Second

// open opens the worker's session at the run's level. A busy database (an
// embedded SQLite file that sessions open at the same moment) is retried
// with backoff, as a busy statement would be.
func (w *worker) open(ctx context.Context) error {
	s, err := w.t.Open(ctx)
	for give := time.Now().Add(openPatience); err != nil && isBusy(err) && time.Now().Before(give) && ctx.Err() == nil; {
		w.backoff(string(target.ClassBusy))
		s, err = w.t.Open(ctx)
	}
	w.busy = 0
	if err != nil {
		return fmt.Errorf("session %d: %w", w.num, err)
	}
	if w.opt.Level != "" {
		err = s.SetIsolation(ctx, w.opt.Level)
	}
	level := Concrete(w.opt.Level, w.t.DefaultLevel())
	if q, ok := s.(target.QuickDeadlocks); ok && err == nil {
		// Free sessions wait on each other's locks like any client; a
		// deadlock should end in milliseconds, not after the default second.
		err = q.QuickDeadlocks(ctx)
	}
	if err != nil {
		s.Close()
		return fmt.Errorf("session %d: %w", w.num, err)
	}
	w.conn = &Conn{sess: s, num: w.num, level: level}
	return nil
}

func (w *worker) close() {
	if w.conn != nil {
		w.conn.sess.Close()
		w.conn = nil
	}
}

// backoff sleeps a little after contention so that retries do not spin hot
// against the session holding the lock (SQLite never waits itself: every
// lock wait is an immediate busy error).
func (w *worker) backoff(class string) {
	switch target.ErrorClass(class) {
	case target.ClassBusy, target.ClassDeadlock, target.ClassSerialization, target.ClassLockTimeout:
		w.busy = min(w.busy+1, 6)
		time.Sleep(time.Duration(w.rng.Int64N(int64(50*time.Microsecond) << w.busy)))
	default:
		w.busy = 0
	}
}

func isBusy(err error) bool {
	te := target.AsError(err)
	return te != nil && te.Class == target.ClassBusy
}

// errNoClient is returned for FreeOptions without a client.
var errNoClient = errors.New("free run: no client")

package instrument

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// StressConfig configures Stress.
type StressConfig struct {
	// Sessions is the number of concurrent connections, 2..5 (default 4).
	Sessions int
	// Duration bounds the run (default 10s); transactions in flight finish.
	Duration time.Duration
	// MaxTxns, when positive, also stops each session after that many
	// transactions (tests).
	MaxTxns int
	// Seed seeds the generator: schema, data and the transaction bodies
	// (which session runs which body depends on timing).
	Seed uint64
	// Isolation is set on every session ("" keeps the DBMS default).
	Isolation target.Level
	// Gen tunes the generator; its Dialect is taken from the target.
	Gen gen.Config
	// ReadEvery makes every n-th transaction of a session an instrumented
	// read of all tables (default 10; paper §3.3: reads after writes reveal
	// ww and rw edges).
	ReadEvery int
}

// Stress creates a generated schema in t (after Reset), then runs generated
// transactions, instrumented, on cfg.Sessions sessions concurrently until
// cfg.Duration has passed, and ends with a full read of every table. Each
// transaction is recorded with its session, isolation, statements, outcome
// and monotonic start/end nanoseconds since the run began.
func Stress(ctx context.Context, t target.Target, cfg StressConfig) (*history.History, error) {
	if cfg.Sessions == 0 {
		cfg.Sessions = 4
	}
	if cfg.Sessions < 2 || cfg.Sessions > 5 {
		return nil, fmt.Errorf("stress: sessions must be 2..5, got %d", cfg.Sessions)
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.ReadEvery <= 0 {
		cfg.ReadEvery = 10
	}
	d := t.Info().Dialect
	gc := cfg.Gen
	gc.Dialect = d
	g := gen.New(cfg.Seed, gc)
	rw := NewRewriter(d)
	s := &stress{t: t, rw: rw, d: d, base: time.Now(), iso: cfg.Isolation}

	if err := t.Reset(ctx); err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	init := history.Txn{ID: 0, Init: true}
	setup, err := t.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	for _, st := range g.Setup() {
		orig := sqlast.Format(d, st)
		sql, info := rw.Setup(orig)
		if _, err := setup.Exec(ctx, sql); err != nil {
			setup.Close()
			return nil, fmt.Errorf("stress: setup %s: %w", sql, err)
		}
		// Every setup statement is kept, DDL too: a finding's case file
		// is rebuilt from the history.
		init.Stmts = append(init.Stmts, history.Stmt{SQL: orig, Sent: []string{sql}, Kind: info.Kind, Inserted: info.Inserted})
	}
	setup.Close()
	if err := t.Adopt(ctx); err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	s.add(init)

	deadline := s.base.Add(cfg.Duration)
	var mu sync.Mutex // the generator is not safe for concurrent use
	errs := make([]error, cfg.Sessions)
	var wg sync.WaitGroup
	for i := range cfg.Sessions {
		wg.Go(func() {
			errs[i] = s.session(ctx, i+1, func(n int) (*gen.Txn, bool) {
				if time.Now().After(deadline) || ctx.Err() != nil || cfg.MaxTxns > 0 && n >= cfg.MaxTxns {
					return nil, false
				}
				if (n+1)%cfg.ReadEvery == 0 {
					return nil, true
				}
				mu.Lock()
				defer mu.Unlock()
				return g.Transaction(), true
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	final := cfg.Sessions + 1
	if err := s.session(ctx, final, func(n int) (*gen.Txn, bool) { return nil, n == 0 }); err != nil {
		return nil, err
	}
	slices.SortFunc(s.h.Txns, func(a, b history.Txn) int { return int(a.ID - b.ID) })
	return &s.h, nil
}

type stress struct {
	t    target.Target
	rw   *Rewriter
	d    sqlast.Dialect
	base time.Time
	iso  target.Level
	next atomic.Int64

	mu sync.Mutex
	h  history.History
}

// now is monotonic nanoseconds since the run began (time.Since uses the
// monotonic clock), plus one so that 0 keeps meaning "unknown".
func (s *stress) now() int64 { return int64(time.Since(s.base)) + 1 }

func (s *stress) add(t history.Txn) {
	s.mu.Lock()
	s.h.Txns = append(s.h.Txns, t)
	s.mu.Unlock()
}

// session runs transactions on one connection while next supplies them (a
// nil transaction is a full read).
func (s *stress) session(ctx context.Context, conn int, next func(n int) (*gen.Txn, bool)) error {
	sess, err := s.t.Open(ctx)
	if err != nil {
		return fmt.Errorf("stress: session %d: %w", conn, err)
	}
	defer sess.Close()
	if q, ok := sess.(target.QuickDeadlocks); ok {
		if err := q.QuickDeadlocks(ctx); err != nil {
			return fmt.Errorf("stress: session %d: %w", conn, err)
		}
	}
	iso := s.iso
	if iso != "" {
		if err := sess.SetIsolation(ctx, iso); err != nil {
			return fmt.Errorf("stress: session %d: %w", conn, err)
		}
	} else {
		iso = s.t.DefaultLevel()
	}
	for n := 0; ; n++ {
		gt, ok := next(n)
		if !ok {
			return nil
		}
		id := s.next.Add(1)
		txn, err := s.run(ctx, sess, id, gt)
		txn.Session, txn.Isolation = conn, string(iso)
		s.add(txn)
		if err != nil {
			return fmt.Errorf("stress: session %d: %w", conn, err)
		}
	}
}

// group is one original statement and what the rewriter sends for it.
type group struct {
	sql   string
	table string // set on a full read, whose values are kept
	sent  []Sent
	info  Info
}

// run executes one transaction; only a broken connection is an error.
func (s *stress) run(ctx context.Context, sess target.Session, id int64, gt *gen.Txn) (history.Txn, error) {
	txn := history.Txn{ID: id, Start: s.now()}
	var groups []group
	explicit, rollback := true, false
	if gt == nil {
		for _, tbl := range s.rw.Tables() {
			plain, sent := s.rw.SnapshotRead(tbl)
			groups = append(groups, group{sql: plain, table: tbl, sent: []Sent{{SQL: sent, Role: RoleFinalRead}}, info: Info{Kind: "SELECT", Instrumented: true}})
		}
	} else {
		explicit, rollback = gt.Explicit, gt.Rollback
		for _, st := range gt.Body {
			sql := sqlast.Format(s.d, st)
			sent, info := s.rw.Statement(sql, id)
			groups = append(groups, group{sql: sql, sent: sent, info: info})
			if len(sent) > 1 {
				explicit = true // the pre-read and the write must be one transaction
			}
		}
	}
	exec := func(sql string) (*target.Result, *target.Error, error) {
		res, err := sess.Exec(ctx, sql)
		if err == nil {
			return res, nil, nil
		}
		te := target.AsError(err)
		if te == nil || te.Class == target.ClassConnection {
			return nil, te, err
		}
		return nil, te, nil
	}
	finish := func(st history.Status) (history.Txn, error) {
		txn.Status, txn.End = st, s.now()
		return txn, nil
	}
	if explicit {
		if _, te, err := exec("BEGIN"); err != nil || te != nil {
			txn.Status = history.Fail
			return finish(history.Fail)
		}
	}
	aborted, failed := false, false
	for _, gr := range groups {
		st := history.Stmt{SQL: gr.sql, Kind: gr.info.Kind, Aggregate: gr.info.Aggregate, Locking: gr.info.Locking, Note: gr.info.Note, Start: s.now()}
		if gr.info.Instrumented {
			for _, x := range gr.sent {
				st.Sent = append(st.Sent, x.SQL)
			}
		}
		for _, x := range gr.sent {
			res, te, err := exec(x.SQL)
			if err != nil {
				st.Error, st.End = string(target.ClassConnection), s.now()
				txn.Stmts = append(txn.Stmts, st)
				txn.Status, txn.End = history.Unknown, 0
				return txn, err
			}
			if te != nil {
				st.Error = string(te.Class)
				failed = true
				// A victim, a busy SQLite database or PostgreSQL's aborted
				// state: the transaction is over.
				aborted = te.RolledBack || te.Class == target.ClassBusy || te.Class == target.ClassDeadlock ||
					te.Class == target.ClassSerialization || te.Class == target.ClassLockTimeout
				break
			}
			if !gr.info.Instrumented || gr.info.Aggregate {
				continue
			}
			vs := Versions(res.Columns, res.Rows)
			switch {
			case x.Role == RolePreRead && gr.info.PreDeletes:
				st.Deleted = vs
			default:
				st.Reads = append(st.Reads, vs...)
			}
			if x.Role == RoleMain {
				st.Inserted = gr.info.Inserted
			}
			if gr.table != "" {
				st.Table = gr.table
				st.Columns, st.Rows = values(res.Columns, res.Rows)
			}
		}
		st.End = s.now()
		txn.Stmts = append(txn.Stmts, st)
		if aborted {
			break
		}
	}
	if !explicit {
		if failed {
			return finish(history.Fail)
		}
		return finish(history.OK)
	}
	// An autocommit statement wrapped for its pre-read commits only if it succeeded.
	if aborted || rollback || failed && gt != nil && !gt.Explicit {
		if _, _, err := exec("ROLLBACK"); err != nil {
			txn.Status = history.Fail
			return txn, err
		}
		return finish(history.Fail)
	}
	_, te, err := exec("COMMIT")
	switch {
	case err != nil:
		txn.Status = history.Unknown // the outcome of the COMMIT was never seen
		return txn, err
	case te != nil:
		exec("ROLLBACK")
		return finish(history.Fail)
	}
	return finish(history.OK)
}

// values returns the columns and rows of a result without the hidden
// columns, NULL as nil.
func values(columns []string, rows []target.Row) ([]string, [][]*string) {
	keep := shown(columns)
	cols := make([]string, len(keep))
	for j, i := range keep {
		cols[j] = columns[i]
	}
	out := make([][]*string, len(rows))
	for r, row := range rows {
		vals := make([]*string, len(keep))
		for j, i := range keep {
			if i < len(row) && !row[i].Null {
				vals[j] = &row[i].S
			}
		}
		out[r] = vals
	}
	return cols, out
}

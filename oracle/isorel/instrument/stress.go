package instrument

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txlab/txlab/executor"
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
	gc.NoSharedLocks = t.Info().NoSharedLocks
	gc.NoLockingReads = t.Info().NoLockingReads
	g := gen.New(cfg.Seed, gc)
	rw := NewRewriter(t.Info())
	s := &stress{rw: rw, d: d, base: time.Now()}

	init := history.Txn{ID: 0, Init: true}
	var sent []string
	for _, st := range g.Setup() {
		orig := sqlast.Format(d, st)
		sql, info := rw.Setup(orig)
		sent = append(sent, sql)
		// Every setup statement is kept, DDL too: a finding's case file
		// is rebuilt from the history.
		init.Stmts = append(init.Stmts, history.Stmt{SQL: orig, Sent: []string{sql}, Kind: info.Kind, Inserted: info.Inserted, Names: info.Names})
	}
	if _, err := executor.Prepare(ctx, t, sent); err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	s.add(init)

	var mu sync.Mutex // the generator is not safe for concurrent use
	_, err := executor.Free(ctx, t, executor.FreeOptions{
		Sessions: cfg.Sessions, Level: cfg.Isolation, Duration: cfg.Duration, Seed: cfg.Seed,
		NewClient: func(int) executor.Client {
			return s.client(func(n int) (*gen.Txn, bool) {
				if cfg.MaxTxns > 0 && n >= cfg.MaxTxns {
					return nil, false
				}
				if (n+1)%cfg.ReadEvery == 0 {
					return nil, true
				}
				mu.Lock()
				defer mu.Unlock()
				return g.Transaction(), true
			})
		},
	})
	if err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	// The final full read, on a session of its own after all others.
	_, err = executor.Free(ctx, t, executor.FreeOptions{
		Sessions: 1, Level: cfg.Isolation, FirstSession: cfg.Sessions + 1,
		NewClient: func(int) executor.Client {
			return s.client(func(n int) (*gen.Txn, bool) { return nil, n == 0 })
		},
	})
	if err != nil {
		return nil, fmt.Errorf("stress: %w", err)
	}
	slices.SortFunc(s.h.Txns, func(a, b history.Txn) int { return int(a.ID - b.ID) })
	return &s.h, nil
}

type stress struct {
	rw   *Rewriter
	d    sqlast.Dialect
	base time.Time
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

// clientFunc is a session's transactions as an executor.Client: next
// supplies them (a nil transaction is a full read; false: no more).
type clientFunc struct {
	s    *stress
	next func(n int) (*gen.Txn, bool)
}

func (s *stress) client(next func(n int) (*gen.Txn, bool)) executor.Client {
	return &clientFunc{s: s, next: next}
}

// Txn implements executor.Client: it runs and records one transaction; a
// lost connection ends the run.
func (c *clientFunc) Txn(ctx context.Context, conn *executor.Conn, n int) (string, bool, error) {
	gt, ok := c.next(n)
	if !ok {
		return "", true, nil
	}
	id := c.s.next.Add(1)
	txn, class, err := c.s.run(ctx, conn, id, gt)
	txn.Session, txn.Isolation = conn.Session(), string(conn.Level())
	c.s.add(txn)
	if err != nil {
		return "", false, fmt.Errorf("session %d: %w", conn.Session(), err)
	}
	return class, false, nil
}

// group is one original statement and what the rewriter sends for it.
type group struct {
	sql   string
	table string // set on a full read, whose values are kept
	sent  []Sent
	info  Info
}

// run executes one transaction; only a broken connection is an error.
// class is the error class that ended it, if any.
func (s *stress) run(ctx context.Context, conn *executor.Conn, id int64, gt *gen.Txn) (txn history.Txn, class string, err error) {
	txn, err = s.runTxn(ctx, conn, id, gt, &class)
	return txn, class, err
}

func (s *stress) runTxn(ctx context.Context, conn *executor.Conn, id int64, gt *gen.Txn, class *string) (history.Txn, error) {
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
		res, te, err := conn.Exec(ctx, sql)
		if te != nil && *class == "" {
			*class = string(te.Class)
		}
		return res, te, err
	}
	finish := func(st history.Status) (history.Txn, error) {
		txn.Status, txn.End = st, s.now()
		return txn, nil
	}
	if gt == nil && (conn.Level() == target.ReadCommitted || conn.Level() == target.ReadUncommitted) {
		// A full read's tables in one snapshot: at read committed each
		// SELECT would see another state, and a finding's case starts
		// from the rows it saw (stresscase.go). It takes no locks at
		// repeatable read either; the session's level comes back after.
		if err := conn.SetIsolation(ctx, target.RepeatableRead); err == nil {
			defer conn.SetIsolation(context.WithoutCancel(ctx), conn.Level())
		}
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
				st.Inserted, st.Names = gr.info.Inserted, gr.info.Names
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

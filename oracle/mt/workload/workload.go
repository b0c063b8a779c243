// Package workload runs mini-transaction (MT) workloads on a target.Target
// and records their history, for the MTC checkers in oracle/mt.
//
// A run creates one table (k INT PRIMARY KEY, v BIGINT NOT NULL) in txlab's
// schema, inserts every key with a unique initial value (recorded as the
// init transaction ⊥), and lets free-running sessions execute MTs per the
// MTC paper's Definition 8: one or two reads, at most two writes, each
// write a read-modify-write of a key the MT read first, and every written
// value globally unique (session number in the high 32 bits, a per-session
// counter in the low ones; initial values are the keys themselves, below
// 2^32, so no write ever repeats one). Every MT is recorded with its
// outcome as the client saw it: ok, fail (rolled back; the operations that
// ran are still recorded, which is how the checker finds aborted reads) or
// unknown (the connection broke during COMMIT: the checker decides from
// later reads whether it took effect, the recorder never guesses).
//
// In LWT mode every operation is one autocommit statement on an initially
// empty table: insert-if-not-exists (a plain INSERT; the primary key
// rejects the second) or compare-and-set (UPDATE … WHERE k = K AND v = OLD,
// success from the affected-row count), recorded as ["w(k,v)"] and
// ["r(k,old)","w(k,new)"], the shape mt.Check(…, mt.Linearizable) expects.
package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/target"
)

// Stats summarises a run.
type Stats struct {
	// Committed, Failed and Unknown count recorded MTs by status.
	Committed int `json:"committed"`
	Failed    int `json:"failed"`
	Unknown   int `json:"unknown"`
	// ByClass counts failed and unknown MTs by the class of the error that
	// ended them; "cas-failed" and "exists" count LWT operations that ran
	// but did not apply.
	ByClass map[string]int `json:"by_class,omitempty"`
	// Reconnects counts sessions reopened after a broken connection.
	Reconnects int `json:"reconnects,omitempty"`
	// Elapsed is the wall time of the MT phase (after setup).
	Elapsed time.Duration `json:"elapsed_ns"`
	// TxnsPerSec is recorded MTs (all statuses) per second of Elapsed.
	TxnsPerSec float64 `json:"txns_per_sec"`
}

// Total is the number of recorded MTs.
func (s *Stats) Total() int { return s.Committed + s.Failed + s.Unknown }

// Classes for LWT operations that ran without error but did not apply.
const (
	classCASFailed = "cas-failed"
	classExists    = "exists"
)

// recorder collects transactions from all sessions in finish order, which
// keeps every session's transactions in session order.
type recorder struct {
	mu       sync.Mutex
	h        history.History
	stats    Stats
	cfg      *Config
	writeErr error
}

func (r *recorder) add(t history.Txn, class string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Txns = append(r.h.Txns, t)
	if !t.Init {
		switch t.Status {
		case history.OK:
			r.stats.Committed++
		case history.Fail:
			r.stats.Failed++
		case history.Unknown:
			r.stats.Unknown++
		}
		if class != "" {
			r.stats.ByClass[class]++
		}
	}
	if r.cfg.History != nil && r.writeErr == nil {
		if err := history.WriteTxn(r.cfg.History, &r.h.Txns[len(r.h.Txns)-1]); err != nil {
			r.writeErr = fmt.Errorf("workload: writing history: %w", err)
		}
	}
	if r.cfg.Progress != nil && !t.Init {
		r.cfg.Progress(r.stats.Total())
	}
	return r.writeErr
}

// Run resets txlab's schema on t, creates cfg.Table, runs the workload and
// returns the history (init transaction first, then MTs in finish order)
// and statistics. On an error after setup it still returns what was
// recorded so far. Cancelling ctx stops the run: statements in flight are
// interrupted and recorded honestly (a COMMIT in flight as unknown), and
// Run returns the history with ctx's error.
func Run(ctx context.Context, t target.Target, cfg Config) (*history.History, *Stats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Level != "" {
		l, _ := target.ParseLevel(string(cfg.Level))
		cfg.Level = l
	}
	cfg.Level = executor.ConcreteOn(t, cfg.Level)
	if err := target.CheckLevel(t.Info().DBMS, cfg.Level, t.Levels()); err != nil {
		return nil, nil, fmt.Errorf("workload: %w", err)
	}
	rec := &recorder{cfg: &cfg, stats: Stats{ByClass: map[string]int{}}}
	t0 := time.Now()
	clock := func() int64 { return time.Since(t0).Nanoseconds() }
	if err := setup(ctx, t, &cfg, rec, clock); err != nil {
		return nil, nil, err
	}
	var nextID atomic.Int64
	st, err := executor.Free(ctx, t, executor.FreeOptions{
		Sessions: cfg.Sessions, Level: cfg.Level, Duration: cfg.Duration, Txns: cfg.Txns,
		Reconnect: true, Seed: cfg.Seed,
		NewClient: func(i int) executor.Client {
			w := &worker{cfg: &cfg, rec: rec, clock: clock, nextID: &nextID,
				rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1))}
			w.keys = newKeyPicker(w.rng, cfg.Keys, cfg.Distribution)
			return w
		},
	})
	rec.stats.Elapsed = st.Elapsed
	rec.stats.Reconnects = st.Reconnects
	if s := rec.stats.Elapsed.Seconds(); s > 0 {
		rec.stats.TxnsPerSec = float64(rec.stats.Total()) / s
	}
	// err is nil unless ctx was cancelled or a session hit a fatal error.
	return &rec.h, &rec.stats, err
}

// setup creates the table and, outside LWT mode, inserts every key and
// records the init transaction.
func setup(ctx context.Context, t target.Target, cfg *Config, rec *recorder, clock func() int64) error {
	// k and v, not key and value: KEY is reserved in MySQL.
	stmts := []string{"CREATE TABLE " + cfg.Table + " (k INT PRIMARY KEY, v BIGINT NOT NULL)"}
	init := history.Txn{ID: 0, Init: true, Status: history.OK, Ops: make([]history.Op, 0, cfg.Keys)}
	if !cfg.LWT {
		// Batches keep each statement well under any packet or parameter limit.
		const batch = 500
		var sb strings.Builder
		for lo := 1; lo <= cfg.Keys; lo += batch {
			sb.Reset()
			sb.WriteString("INSERT INTO " + cfg.Table + " (k, v) VALUES ")
			for k := lo; k < lo+batch && k <= cfg.Keys; k++ {
				if k > lo {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "(%d, %d)", k, k)
				init.Ops = append(init.Ops, history.Op{Kind: history.W, Key: int64(k), Value: int64(k)})
			}
			stmts = append(stmts, sb.String())
		}
	}
	init.Start = clock()
	if _, err := executor.Prepare(ctx, t, stmts); err != nil {
		return fmt.Errorf("workload: setup: %w", err)
	}
	if cfg.LWT {
		return nil
	}
	init.End = clock()
	return rec.add(init, "")
}

// worker is one client session's transactions; it implements
// executor.Client.
type worker struct {
	cfg    *Config
	rec    *recorder
	clock  func() int64
	rng    *rand.Rand
	keys   *keyPicker
	steps  []step
	nextID *atomic.Int64

	c       *executor.Conn
	sessNo  int   // the session whose counter runs
	counter int64 // per-session write counter
}

// value returns a fresh globally unique value: the session number in the
// high half, a counter in the low one. Initial values are at most 2^30.
func (w *worker) value() int64 {
	w.counter++
	return int64(w.sessNo)<<32 | w.counter
}

// Txn implements executor.Client: it runs and records one MT (or LWT
// operation). Only errors that make the run meaningless (a read found no
// row, the history cannot be written) are returned.
func (w *worker) Txn(ctx context.Context, c *executor.Conn, _ int) (string, bool, error) {
	w.c = c
	if c.Session() != w.sessNo {
		// A new session (numbers are never reused) starts a new counter.
		if c.Session() >= 1<<31 {
			return "", false, errors.New("workload: too many sessions (reconnects) for the value encoding")
		}
		w.sessNo, w.counter = c.Session(), 0
	}
	var (
		t     history.Txn
		class string
		err   error
	)
	if w.cfg.LWT {
		t, class, err = w.lwt(ctx)
	} else {
		t, class, err = w.mt(ctx)
	}
	if err != nil {
		return "", false, err
	}
	t.Session = w.sessNo
	return class, false, w.rec.add(t, class)
}

// classOf names an error's class; errors without one (a cancelled
// context) count as connection errors: the session's state is unknown.
func classOf(te *target.Error) (target.ErrorClass, bool) {
	if te != nil {
		return te.Class, te.Class == target.ClassConnection
	}
	return target.ClassConnection, true
}

// exec runs one statement; err is set for any error, with its class.
func (w *worker) exec(ctx context.Context, q string) (*target.Result, target.ErrorClass, bool, error) {
	res, te, lost := w.c.Exec(ctx, q)
	if lost == nil && te == nil && res != nil && res.Truncated > 0 {
		// Its reads name one key each: a result past txlab's bounds means
		// the tables are not the workload's, and a history from part of
		// it would be judged wrong. The run stops instead.
		return nil, target.ClassOther, true, fmt.Errorf("mt: %s returned more rows than txlab keeps (%d dropped, --max-rows / --max-result-bytes)", q, res.Truncated)
	}
	if lost == nil && te == nil {
		return res, "", false, nil
	}
	class, conn := classOf(te)
	if lost != nil {
		return nil, class, true, lost
	}
	return nil, class, conn, te
}

// mt runs one mini-transaction.
func (w *worker) mt(ctx context.Context) (history.Txn, string, error) {
	w.steps = w.keys.plan(w.cfg.ReadOnlyRatio, w.steps)
	t := history.Txn{ID: w.nextID.Add(1), Status: history.Fail, Ops: make([]history.Op, 0, len(w.steps))}
	t.Start = w.clock()
	fail := func(class target.ErrorClass, lost bool) (history.Txn, string, error) {
		t.End = w.clock()
		if !lost {
			w.c.Rollback(ctx)
		}
		return t, string(class), nil
	}
	if _, class, lost, err := w.exec(ctx, "BEGIN"); err != nil {
		return fail(class, lost)
	}
	for _, s := range w.steps {
		if !s.write {
			v, class, lost, err := w.read(ctx, s.key)
			if err != nil {
				if _, ok := err.(*workloadError); ok {
					w.c.Rollback(ctx)
					return t, "", err
				}
				return fail(class, lost)
			}
			t.Ops = append(t.Ops, history.Op{Kind: history.R, Key: s.key, Value: v})
			continue
		}
		v := w.value()
		q := "UPDATE " + w.cfg.Table + " SET v = " + strconv.FormatInt(v, 10) + " WHERE k = " + strconv.FormatInt(s.key, 10)
		res, class, lost, err := w.exec(ctx, q)
		if err != nil {
			return fail(class, lost)
		}
		if res.Affected == 0 {
			w.c.Rollback(ctx)
			return t, "", &workloadError{fmt.Sprintf("%s changed no row: key %d is missing", q, s.key)}
		}
		t.Ops = append(t.Ops, history.Op{Kind: history.W, Key: s.key, Value: v})
	}
	_, class, lost, err := w.exec(ctx, "COMMIT")
	t.End = w.clock()
	switch {
	case err == nil:
		t.Status = history.OK
		return t, "", nil
	case lost:
		// The COMMIT may or may not have reached the server: never guess.
		t.Status = history.Unknown
		return t, string(class), nil
	}
	w.c.Rollback(ctx)
	return t, string(class), nil
}

// workloadError is a result that breaks the workload's assumptions (a key's
// row is missing, a value is not an integer): the run stops with it.
type workloadError struct{ msg string }

func (e *workloadError) Error() string { return "workload: " + e.msg }

// read returns key's value. A missing row is a workloadError in MT mode.
func (w *worker) read(ctx context.Context, key int64) (int64, target.ErrorClass, bool, error) {
	v, ok, class, lost, err := w.lookup(ctx, key)
	if err == nil && !ok {
		return 0, "", false, &workloadError{fmt.Sprintf("key %d has no row in %s", key, w.cfg.Table)}
	}
	return v, class, lost, err
}

// lookup reads key's value; ok is false when the row does not exist.
func (w *worker) lookup(ctx context.Context, key int64) (v int64, ok bool, class target.ErrorClass, lost bool, err error) {
	q := "SELECT v FROM " + w.cfg.Table + " WHERE k = " + strconv.FormatInt(key, 10)
	res, class, lost, err := w.exec(ctx, q)
	if err != nil {
		return 0, false, class, lost, err
	}
	switch len(res.Rows) {
	case 0:
		return 0, false, "", false, nil
	case 1:
	default:
		return 0, false, "", false, &workloadError{fmt.Sprintf("%s returned %d rows", q, len(res.Rows))}
	}
	if len(res.Rows[0]) != 1 || res.Rows[0][0].Null {
		return 0, false, "", false, &workloadError{fmt.Sprintf("%s returned %v", q, res.Rows[0])}
	}
	v, perr := strconv.ParseInt(res.Rows[0][0].S, 10, 64)
	if perr != nil {
		return 0, false, "", false, &workloadError{fmt.Sprintf("%s returned %q: %v", q, res.Rows[0][0].S, perr)}
	}
	return v, true, "", false, nil
}

// lwt runs one lightweight-transaction operation: look the key up (a hint,
// not recorded), then insert it if absent or compare-and-set it if present.
// The recorded interval covers the one statement that is the operation.
func (w *worker) lwt(ctx context.Context) (history.Txn, string, error) {
	k := w.keys.pick()
	t := history.Txn{ID: w.nextID.Add(1), Status: history.Fail}
	t.Start = w.clock()
	old, exists, class, _, err := w.lookup(ctx, k)
	if err != nil {
		t.End = w.clock()
		if _, ok := err.(*workloadError); ok {
			return t, "", err
		}
		// Nothing was attempted: an empty failed transaction.
		return t, string(class), nil
	}
	v := w.value()
	var q string
	if exists {
		t.Ops = []history.Op{{Kind: history.R, Key: k, Value: old}, {Kind: history.W, Key: k, Value: v}}
		q = fmt.Sprintf("UPDATE %s SET v = %d WHERE k = %d AND v = %d", w.cfg.Table, v, k, old)
	} else {
		t.Ops = []history.Op{{Kind: history.W, Key: k, Value: v}}
		q = fmt.Sprintf("INSERT INTO %s (k, v) VALUES (%d, %d)", w.cfg.Table, k, v)
	}
	t.Start = w.clock()
	res, class, lost, err := w.exec(ctx, q)
	t.End = w.clock()
	if err != nil {
		switch {
		case lost:
			// An autocommit statement whose reply was lost may have applied.
			t.Status = history.Unknown
		case class == target.ClassDuplicateKey && !exists:
			return t, classExists, nil
		}
		return t, string(class), nil
	}
	switch res.Affected {
	case 1:
		t.Status = history.OK
		return t, "", nil
	case 0:
		if exists {
			return t, classCASFailed, nil
		}
		return t, classExists, nil
	}
	return t, "", &workloadError{fmt.Sprintf("%s: affected-row count %d, want 0 or 1", q, res.Affected)}
}

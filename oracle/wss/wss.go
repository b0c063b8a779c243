// Package wss is the WriteCheck oracle: write-specific serializability
// (Zhang et al., "Detecting Transactional Bugs ... via Write-Specific
// Serializability"). A concurrent schedule's final state and the success or
// failure of every write must equal those of its first-commit/rollback-
// first-scheduled (FCRFS) serial schedule, run as whole transactions
// (tx-WSS) and as the committed transactions' statements in autocommit
// (stmt-WSS). At serializable the reads are compared too.
//
// The oracle never talks to a driver: it asks exec to run the case and the
// serial schedules derived from it, each on a fresh copy of the initial
// database, and asks semantics what the DBMS promises at the level, so that
// a difference the documentation explains is reported as allowed, with its
// rule, rather than as a bug.
package wss

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Name is the oracle name findings carry.
const Name = "wss"

// Finding kinds.
const (
	KindTx   = "tx-wss"
	KindStmt = "stmt-wss"
	KindRead = "read-result"
)

// Rules of WSS's verdicts (allowed verdicts carry the semantics table's
// rules); semantics.Judge.Decide gives them.
var (
	RuleFCRFS             = semantics.RuleFCRFS
	RuleNoSerialOrder     = semantics.RuleNoSerialOrder
	RuleOrdersNotSearched = semantics.RuleOrdersNotSearched
	RuleOutsideModel      = semantics.RuleOutsideModel
)

// DefaultMaxOrders bounds the serial orders triage tries (6! = 720).
const DefaultMaxOrders = 720

// Options tune the oracle.
type Options struct {
	// Exec is passed to every run (the concurrent one and the serial ones).
	Exec executor.Options
	// MaxOrders bounds the serial orders of the committed transactions that
	// triage enumerates; when there are more, triage says it skipped them.
	// 0 means DefaultMaxOrders.
	MaxOrders int
	// Settings are the server settings that select semantics rows (e.g.
	// innodb_snapshot_isolation=ON); nil for defaults.
	Settings map[string]string
	// Model, when set, decides the verdict of a difference below
	// serializable: allowed when every statement followed the view its
	// DBMS documents, the deviating statement's verdict when one did not,
	// suspect when the model cannot decide. Without it the documented
	// mechanisms of the semantics table decide.
	Model *conform.Checker
	// Memo, when set, lets the cases of one group share their serial runs.
	Memo *RunMemo
}

// Run is one execution of a (derived) case.
type Run struct {
	Name   string           `json:"name"`  // "tx-serial", "stmt-serial", "order T2 T1"
	Order  []int            `json:"order"` // transaction IDs in the order run
	Case   *testcase.Case   `json:"-"`
	Result *executor.Result `json:"-"`
	steps  []int            // run step → original step (-1: added ROLLBACK)
	out    map[int]executor.Event
}

// Violation is one finding with what supports it.
type Violation struct {
	Finding verdict.Finding `json:"finding"`
	// Serial is the run the actual one was compared with.
	Serial *Run `json:"serial"`
	Diff   Diff `json:"diff"`
	// Triage: how many serial orders were tried out of how many, whether
	// the enumeration was skipped for being too large, and an order that
	// reproduces the actual result (nil if none did).
	OrdersTried   int   `json:"orders_tried"`
	OrdersTotal   int   `json:"orders_total"`
	OrdersSkipped bool  `json:"orders_skipped,omitempty"`
	Reproducing   []int `json:"reproducing,omitempty"`
	// Explained is the run that showed a documented mechanism at work.
	Explained *Run `json:"explained,omitempty"`
	// Stmt is the statement-level violation of the same cause (verdict and
	// rule) folded into this transaction-level one: one finding, one
	// bundle, both comparisons in its report.
	Stmt *Violation `json:"stmt,omitempty"`
	// Cause is the model's account of the statement that went against its
	// documented view ("" when none did or no model judged).
	Cause string `json:"cause,omitempty"`
}

// Outcome is everything one check produced.
type Outcome struct {
	Case    *testcase.Case
	Info    target.Info
	Level   target.Level
	Promise semantics.Promise
	Actual  *executor.Result
	Txns    []*Txn
	Order   []*Txn // FCRFS
	// TxSerial and StmtSerial are the FCRFS serial runs (nil when the check
	// did not get that far).
	TxSerial, StmtSerial *Run
	Violations           []*Violation
	Findings             []verdict.Finding
	// Runs counts every executor.Run, the concurrent one included.
	Runs int
	// Skipped says why the check did not run to the end ("" if it did).
	Skipped string
	// Model is what the model of documented semantics made of the actual
	// execution, when it was asked.
	Model *model.Conformance
}

type checker struct {
	ctx    context.Context
	t      target.Target
	c      *testcase.Case
	opt    Options
	o      *Outcome
	actual map[int]executor.Event
	cache  map[string]*Run
}

// Check runs c on t, derives the FCRFS serial schedules from the actual
// schedule, runs them on fresh copies of the initial database and compares.
// An error means the runs could not be made (setup failure, lost
// connection); a violation is reported in Outcome.Findings.
func Check(ctx context.Context, t target.Target, c *testcase.Case, opt Options) (*Outcome, error) {
	res, err := executor.Run(ctx, t, c, opt.Exec)
	if err != nil {
		o := &Outcome{Case: c, Info: t.Info(), Runs: 1}
		return o, err
	}
	return CheckExecution(ctx, t, c, res, opt)
}

// CheckExecution is Check on a concurrent run res of c already made (the
// campaign's shared plain execution): it makes only the serial runs.
func CheckExecution(ctx context.Context, t target.Target, c *testcase.Case, res *executor.Result, opt Options) (_ *Outcome, err error) {
	if opt.MaxOrders == 0 {
		opt.MaxOrders = DefaultMaxOrders
	}
	o := &Outcome{Case: c, Info: t.Info(), Runs: 1}
	o.Actual = res
	// The weakest level any connection ran at (executor.Result.Level):
	// its promises are the ones every transaction can rely on.
	o.Level = res.Level()
	o.Promise = semantics.Lookup(o.Info.DBMS, o.Level, opt.Settings)
	if res.Hang {
		o.Skipped = "the concurrent run hung"
		return o, nil
	}
	if res.Truncated != "" {
		o.Skipped = SkippedTruncated + " (the concurrent run: " + res.Truncated + ")"
		return o, nil
	}
	defer func() {
		// A serial run's result txlab could not keep whole: comparing
		// part of it would find differences that are not there.
		var tr *truncatedRun
		if errors.As(err, &tr) {
			o.Skipped = SkippedTruncated + " (" + tr.name + ": " + tr.why + ")"
			err = nil
		}
	}()
	o.Txns = Transactions(c)
	annotate(c, o.Txns, res.Events)
	o.Order = FCRFS(o.Txns)

	k := &checker{ctx: ctx, t: t, c: c, opt: opt, o: o, actual: outcomes(res, nil), cache: map[string]*Run{}}
	if o.TxSerial, err = k.txRun("tx-serial", o.Order); err != nil {
		return o, err
	}
	if o.StmtSerial, err = k.stmtRun(o.Order); err != nil {
		return o, err
	}
	for _, run := range []*Run{o.TxSerial, o.StmtSerial} {
		if run.Result.Hang {
			o.Skipped = "a serial run hung (" + run.Name + ")"
			return o, nil
		}
	}

	all := func(*Txn) bool { return true }
	if d := k.diff(o.TxSerial, all, false); !d.Empty() {
		if r, err := k.concurrentMatch(func(order []*Txn) (*Run, error) { return k.txRun("tx-serial", order) }, all); err != nil {
			return o, err
		} else if r != nil {
			o.TxSerial = r
		} else if err := k.judge(KindTx, o.TxSerial, d); err != nil {
			return o, err
		}
	}
	if d := k.diff(o.StmtSerial, isCommitted, false); !d.Empty() {
		if r, err := k.concurrentMatch(k.stmtRun, isCommitted); err != nil {
			return o, err
		} else if r != nil {
			o.StmtSerial = r
		} else if err := k.judge(KindStmt, o.StmtSerial, d); err != nil {
			return o, err
		}
	}
	if o.Promise.Serializable {
		if d := k.diff(o.TxSerial, isCommitted, true); len(d.Reads) > 0 {
			if err := k.judge(KindRead, o.TxSerial, Diff{Reads: d.Reads}); err != nil {
				return o, err
			}
		}
	}
	o.Violations = foldSameCause(o.Violations)
	for _, v := range o.Violations {
		o.Findings = append(o.Findings, v.Finding)
	}
	return o, nil
}

// foldSameCause folds a statement-level violation into the
// transaction-level one when both carry the same verdict and rule: they are
// one cause seen by two comparisons, and a reader wants one finding.
func foldSameCause(vs []*Violation) []*Violation {
	var tx *Violation
	for _, v := range vs {
		if v.Finding.Kind == KindTx {
			tx = v
		}
	}
	if tx == nil {
		return vs
	}
	out := vs[:0:0]
	for _, v := range vs {
		if v.Finding.Kind == KindStmt && v.Finding.Verdict == tx.Finding.Verdict && v.Finding.Rule == tx.Finding.Rule {
			tx.Stmt = v
			continue
		}
		out = append(out, v)
	}
	return out
}

func isCommitted(t *Txn) bool { return t.State == Committed }

// maxConcurrentOrders bounds the serial runs tried for transactions that
// ended together.
const maxConcurrentOrders = 6

// concurrentMatch runs, with run, the FCRFS orders the actual schedule
// cannot tell from o.Order (transactions ended by statements one COMMIT or
// ROLLBACK released together) and returns the first whose run matches the
// actual one in scope, or nil. Such an order is FCRFS too: no finding.
func (k *checker) concurrentMatch(run func([]*Txn) (*Run, error), scope func(*Txn) bool) (*Run, error) {
	for _, order := range concurrentOrders(k.o.Order, maxConcurrentOrders) {
		r, err := run(order)
		if err != nil {
			return nil, err
		}
		if d := k.diff(r, scope, false); !r.Result.Hang && d.Empty() {
			return r, nil
		}
	}
	return nil, nil
}

// derived makes a case with c's headers and setup and no steps.
func (k *checker) derived() *testcase.Case {
	return &testcase.Case{
		Name: k.c.Name, Isolation: k.c.Isolation, ConnIsolation: k.c.ConnIsolation,
		DBMS: k.c.DBMS, Mode: k.c.Mode, Seed: k.c.Seed, Setup: k.c.Setup,
	}
}

func orderKey(prefix string, order []*Txn) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, t := range order {
		fmt.Fprintf(&b, " T%d", t.ID)
	}
	return b.String()
}

func ids(order []*Txn) []int {
	out := make([]int, len(order))
	for i, t := range order {
		out[i] = t.ID
	}
	return out
}

func (k *checker) exec(name, key string, order []*Txn, dc *testcase.Case, steps []int) (*Run, error) {
	res := k.opt.Memo.get(k.t, dc, k.opt.Exec)
	if res == nil {
		var err error
		res, err = executor.Run(k.ctx, k.t, dc, k.opt.Exec)
		k.o.Runs++
		if err != nil {
			return nil, fmt.Errorf("wss: %s: %w", name, err)
		}
		k.opt.Memo.put(k.t, dc, k.opt.Exec, res)
	}
	if res.Truncated != "" {
		return nil, &truncatedRun{name: name, why: res.Truncated}
	}
	r := &Run{Name: name, Order: ids(order), Case: dc, Result: res, steps: steps}
	r.out = outcomes(res, steps)
	k.cache[key] = r
	return r, nil
}

// txRun runs the transactions one after another in the given order.
func (k *checker) txRun(name string, order []*Txn) (*Run, error) {
	key := orderKey("tx", order)
	if r, ok := k.cache[key]; ok {
		return r, nil
	}
	dc := k.derived()
	var steps []int
	for _, t := range order {
		ss, rollback := t.serialSteps()
		for _, s := range ss {
			dc.Steps = append(dc.Steps, testcase.Step{Conn: t.Conn, SQL: k.c.Steps[s].SQL})
			steps = append(steps, s)
		}
		if rollback && len(ss) > 0 {
			dc.Steps = append(dc.Steps, testcase.Step{Conn: t.Conn, SQL: "ROLLBACK"})
			steps = append(steps, -1)
		}
	}
	return k.exec(name, key, order, dc, steps)
}

// stmtRun runs the committed transactions' statements, without their
// transaction control and savepoint statements, each in autocommit, in the
// given order. The statements a ROLLBACK TO SAVEPOINT undid (it succeeded
// in the actual run) are left out too.
func (k *checker) stmtRun(order []*Txn) (*Run, error) {
	dc := k.derived()
	var steps []int
	var used []*Txn
	for _, t := range order {
		if t.State != Committed {
			continue
		}
		used = append(used, t)
		for _, s := range k.dataSteps(t) {
			dc.Steps = append(dc.Steps, testcase.Step{Conn: t.Conn, SQL: k.c.Steps[s].SQL})
			steps = append(steps, s)
		}
	}
	return k.exec("stmt-serial", orderKey("stmt", used), used, dc, steps)
}

// limitRE spots a LIMIT (or FETCH FIRST) in a read.
var limitRE = regexp.MustCompile(`(?i)\b(LIMIT|FETCH\s+FIRST)\b`)

// diff compares the actual run with r: final states, the outcome of the
// writes of the transactions in scope, and (reads) their query results.
func (k *checker) diff(r *Run, scope func(*Txn) bool, reads bool) Diff {
	d := Diff{Tables: diffStates(k.o.Actual.Final, r.Result.Final)}
	for _, t := range k.o.Txns {
		if !scope(t) {
			continue
		}
		for _, s := range t.Steps {
			sql := k.c.Steps[s].SQL
			a, okA := k.actual[s]
			b, okB := r.out[s]
			if !okA || !okB {
				continue
			}
			if a.Status == executor.StatusError && a.Error != nil && artifact(a.Error.Class) {
				continue
			}
			sd := StmtDiff{Step: s, Conn: t.Conn, SQL: sql, Actual: brief(a), Serial: brief(b)}
			switch {
			case IsWrite(sql):
				if (a.Status == executor.StatusError) != (b.Status == executor.StatusError) {
					d.Writes = append(d.Writes, sd)
				}
			case reads && IsRead(sql) && !limitRE.MatchString(sql) && !skipsLocked(sql):
				// A LIMIT over rows its ORDER BY leaves tied may keep
				// any of them (SQL leaves it open): such a read is not
				// compared. Nor is a read that skips locked rows: its
				// view is inconsistent by design (PostgreSQL's SELECT,
				// The Locking Clause: "Skipping locked rows provides an
				// inconsistent view of the data"; MySQL 8.0 manual
				// 17.7.2.4), even at SERIALIZABLE.
				if a.Status != b.Status || !sameRows(a.Rows, b.Rows) {
					sd.Actual, sd.Serial = rowsText(a), rowsText(b)
					d.Reads = append(d.Reads, sd)
				}
			}
		}
	}
	return d
}

func rowsText(ev executor.Event) string {
	if ev.Status == executor.StatusError {
		return brief(ev)
	}
	parts := make([]string, len(ev.Rows))
	for i, r := range sorted(ev.Rows) {
		parts[i] = executor.FormatRow(r)
	}
	return fmt.Sprintf("%s %s", english.Plural(len(ev.Rows), "row"), strings.Join(parts, " "))
}

// matches reports whether r reproduces the actual result: the same final
// state, the same write outcomes and (reads) query results of the committed
// transactions.
func (k *checker) matches(r *Run, reads bool) bool {
	d := k.diff(r, isCommitted, reads)
	return d.Empty()
}

// committed returns the committed transactions in FCRFS order. Serial
// orders run only these: the others left no trace in the actual state, but a
// failed autocommit statement can succeed at another position of a serial
// order and change the state.
func (k *checker) committed() (com []*Txn) {
	for _, t := range k.o.Order {
		if t.State == Committed {
			com = append(com, t)
		}
	}
	return com
}

// search enumerates serial orders of the committed transactions, in
// lexicographic order starting with FCRFS, until one reproduces the actual
// result.
func (k *checker) search(v *Violation, reads bool) error {
	// Only the committed transactions run: the others left no trace in the
	// actual state, but a failed autocommit statement can succeed at another
	// position of a serial order and change the state it is compared on.
	com := k.committed()
	total := 1
	for i := 2; i <= len(com); i++ {
		total *= i
		if total > k.opt.MaxOrders {
			break
		}
	}
	v.OrdersTotal = total
	if total > k.opt.MaxOrders {
		v.OrdersSkipped = true
		return nil
	}
	idx := make([]int, len(com))
	for i := range idx {
		idx[i] = i
	}
	for {
		order := make([]*Txn, 0, len(com))
		for _, i := range idx {
			order = append(order, com[i])
		}
		r, err := k.txRun(orderKey("order", order), order)
		if err != nil {
			return err
		}
		v.OrdersTried++
		if !r.Result.Hang && k.matches(r, reads) {
			v.Reproducing = ids(order)
			return nil
		}
		if !nextPerm(idx) {
			return nil
		}
	}
}

// nextPerm advances p to the next permutation in lexicographic order.
func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	for a, b := i+1, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
	return true
}

// explain tries each documented mechanism of the level; it returns the
// mechanism and the run that shows it.
func (k *checker) explain(d Diff) (*semantics.Mechanism, *Run, error) {
	for i := range k.o.Promise.WSS {
		m := &k.o.Promise.WSS[i]
		var r *Run
		var err error
		switch m.Kind {
		case semantics.SnapshotPredicate:
			r, err = k.snapshotPredicate(m)
		case semantics.SemiConsistentRead:
			r, err = k.semiConsistentRead(m, d)
		}
		if err != nil || r != nil {
			return m, r, err
		}
	}
	return nil, nil, nil
}

// snapshotPredicate tests the SnapshotPredicate mechanism: for a committed
// writer W and a concurrent committed writer I (of a kind the mechanism
// names) that ended first, the serial order that moves W just before I (or I
// just after W) reproduces the actual result.
func (k *checker) snapshotPredicate(m *semantics.Mechanism) (*Run, error) {
	com := k.committed()
	hasKind := func(t *Txn, kinds []string) bool {
		for _, s := range t.Steps {
			kw := testcase.KindOf(k.c.Steps[s]).Keyword
			for _, want := range kinds {
				if kw == want {
					return true
				}
			}
		}
		return false
	}
	writes := func(t *Txn) bool {
		for _, s := range t.Steps {
			if testcase.KindOf(k.c.Steps[s]).IsWrite() {
				return true
			}
		}
		return false
	}
	for wi, w := range com {
		if !writes(w) {
			continue
		}
		for ii := 0; ii < wi; ii++ {
			in := com[ii]
			if w.Start >= in.End || !hasKind(in, m.Writers) {
				continue // not concurrent, or not a writer the mechanism hides
			}
			if m.WriterAfter && !k.writesAfter(in, w, m.Writers) {
				continue
			}
			// W just before I, or I just after W: either way W does not
			// see I, and the transactions between them keep their order.
			var before, after []*Txn
			for j, t := range com {
				if j == ii {
					before = append(before, w)
				}
				if j != wi {
					before = append(before, t)
				}
				if j != ii {
					after = append(after, t)
				}
				if j == wi {
					after = append(after, in)
				}
			}
			for _, order := range [][]*Txn{before, after} {
				r, err := k.txRun(orderKey("order", order), order)
				if err != nil {
					return nil, err
				}
				if !r.Result.Hang && k.matches(r, false) {
					return r, nil
				}
			}
		}
	}
	if m.Statement {
		return k.statementPredicate(m)
	}
	return nil, nil
}

// writesAfter reports whether a write of in (of one of the kinds) completed
// after a write of w started, in the actual schedule.
func (k *checker) writesAfter(in, w *Txn, kinds []string) bool {
	first, last := -1, -1
	for pos, ev := range k.o.Actual.Events {
		if ev.Step < 0 || ev.Status == executor.StatusSkipped || !ev.Kind.For(ev.SQL).IsWrite() {
			continue
		}
		if first < 0 && slices.Contains(w.Steps, ev.Step) {
			first = pos
		}
		if ev.Status != executor.StatusBlocked && slices.Contains(in.Steps, ev.Step) && slices.Contains(kinds, ev.Kind.For(ev.SQL).Keyword) {
			last = pos
		}
	}
	return first >= 0 && last > first
}

// judge triages one difference and records the violation with its verdict,
// unless the level's semantics make it no violation at all (reads under
// PostgreSQL SSI that some serial order explains).
func (k *checker) judge(kind string, serial *Run, d Diff) error {
	v := &Violation{Serial: serial, Diff: d}
	reads := kind == KindRead
	if err := k.search(v, reads); err != nil {
		return err
	}
	p := k.o.Promise
	f := verdict.Finding{Oracle: Name, Kind: kind, Isolation: string(k.o.Level)}
	for _, t := range k.o.Order {
		if t.State == Committed {
			f.Transactions = append(f.Transactions, t.ID)
		}
	}
	e := semantics.Evidence{Serial: &semantics.Serial{Reads: reads, Reproduced: v.Reproducing != nil, OrdersSkipped: v.OrdersSkipped}}
	if !p.Serializable {
		m, r, err := k.explain(d)
		if err != nil {
			return err
		}
		if m != nil {
			e.Serial.Mechanism, v.Explained = m, r
		}
		if k.opt.Model != nil {
			conf, err := k.opt.Model.Check(k.ctx, k.t, k.c, k.o.Actual)
			if err != nil {
				return err
			}
			k.o.Model, e.Model = conf, conf
		}
	}
	e.Outside = outsideModel(k.c)
	dec, ok := semantics.Judge{DBMS: k.o.Info.DBMS, Level: k.o.Level, Settings: k.opt.Settings}.Decide(e)
	if !ok {
		return nil // compared against every serial order: no violation
	}
	f.Verdict, f.Rule = dec.Verdict, dec.Rule.Name
	f.Summary = k.summary(kind, v) + dec.Note
	v.Finding, v.Cause = f, dec.Cause
	k.o.Violations = append(k.o.Violations, v)
	return nil
}

func (k *checker) summary(kind string, v *Violation) string {
	var parts []string
	what := map[string]string{KindTx: "transaction-level", KindStmt: "statement-level", KindRead: "transaction-level"}[kind]
	if n := len(v.Diff.Tables); n > 0 {
		var ts []string
		for _, td := range v.Diff.Tables {
			ts = append(ts, td.Table)
		}
		parts = append(parts, "final state differs in "+strings.Join(ts, ", "))
	}
	if n := len(v.Diff.Writes); n > 0 {
		parts = append(parts, fmt.Sprintf("%d write%s succeeded in one run and failed in the other", n, english.S(n)))
	}
	if n := len(v.Diff.Reads); n > 0 {
		parts = append(parts, fmt.Sprintf("%d read%s returned other rows", n, english.S(n)))
	}
	s := strings.Join(parts, "; ") + " vs the " + what + " FCRFS serial order " + orderText(v.Serial.Order)
	switch {
	case v.OrdersSkipped:
		s += fmt.Sprintf("; other serial orders not tried (%d+ > %d)", v.OrdersTotal, k.opt.MaxOrders)
	case v.Reproducing != nil:
		s += "; serial order " + orderText(v.Reproducing) + " reproduces it"
	default:
		s += fmt.Sprintf("; none of the %d serial orders reproduces it", v.OrdersTotal)
	}
	return s
}

func orderText(order []int) string {
	parts := make([]string, len(order))
	for i, id := range order {
		parts[i] = fmt.Sprintf("T%d", id)
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, " → ")
}

// SkippedTruncated is Outcome.Skipped's reason, before its details, when
// a run WSS compares has a result past txlab's bounds (target.Limits).
const SkippedTruncated = executor.TruncatedReason

// truncatedRun ends the check when a serial run's result is not whole.
type truncatedRun struct{ name, why string }

func (e *truncatedRun) Error() string { return "wss: " + e.name + ": " + e.why }

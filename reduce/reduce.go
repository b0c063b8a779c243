// Package reduce shrinks a case that gives a finding into a small case that
// still gives it, for a bug report: greedy delta debugging over the case's
// transactions, tables, steps, setup statements, setup rows, WHERE
// conjuncts, columns, autocommit steps (into the setup), the submitted
// order (fewer switches between connections) and literal values. Every candidate runs on a fresh database through the normal
// executor and oracle pipeline, and is kept only when the finding's key
// (oracle, kind, isolation, verdict, rule, statement kinds) shows in every
// one of several runs, so a flaky candidate never replaces a reliable one.
package reduce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Key is what a reduced case must keep of the finding: the same oracle,
// kind, isolation, verdict and rule, and statement kinds among the
// original's (Troc names the one deviating statement's kind, so for Troc
// that kind stays; WSS and IsoRel name every involved kind, which may
// shrink).
type Key struct {
	Oracle, Kind, Isolation string
	Verdict                 verdict.Verdict
	Rule                    string
	Kinds                   []string
}

// ParseKey reads a finding signature (report.json's "signature"; see
// report.ParseSignature) as a key.
func ParseKey(sig string) (Key, error) {
	p, ok := report.ParseSignature(sig)
	if !ok {
		return Key{}, fmt.Errorf("%q is not a finding signature (oracle kind statement-kinds isolation verdict [rule])", sig)
	}
	return Key{Oracle: p.Oracle, Kind: p.Kind, Isolation: p.Isolation, Verdict: p.Verdict, Rule: p.Rule, Kinds: p.Kinds}, nil
}

// KeyOf is the key of a finding a Writer returned (it carries its
// signature). The verdict is the one before any suppression.
func KeyOf(f verdict.Finding) (Key, error) {
	if f.Signature == "" {
		return Key{}, fmt.Errorf("finding %s %s has no signature", f.Oracle, f.Kind)
	}
	return ParseKey(f.Signature)
}

func (k Key) String() string {
	f := []string{k.Oracle, k.Kind}
	if len(k.Kinds) > 0 {
		f = append(f, strings.Join(k.Kinds, "+"))
	}
	s := strings.Join(append(f, k.Isolation, string(k.Verdict)), " ")
	if k.Rule != "" {
		s += " [" + k.Rule + "]"
	}
	return s
}

// Matches reports whether finding f keeps the key.
func (k Key) Matches(f verdict.Finding) bool {
	if f.Oracle != k.Oracle || f.Kind != k.Kind || f.Isolation != k.Isolation || f.Rule != k.Rule {
		return false
	}
	got, err := KeyOf(f)
	if err != nil || got.Verdict != k.Verdict {
		return false
	}
	if len(got.Kinds) == 0 {
		// A signature without statement kinds: its rule names the cause
		// (report.Bundle.Signature), whatever kinds the key lists.
		return true
	}
	for _, kind := range got.Kinds {
		if !slices.Contains(k.Kinds, kind) {
			return false
		}
	}
	return true
}

// Options configure a reduction.
type Options struct {
	// Oracles judge every candidate; only findings of Key.Oracle count, so
	// passing that oracle alone is fastest.
	Oracles []oracle.CaseOracle
	Exec    executor.Options
	// Runs: a candidate is kept only if every one of Runs executions gives
	// the finding (default 3).
	Runs int
	// Budget bounds the reduction's time (0 = none); when it runs out the
	// smallest case found so far is the result.
	Budget time.Duration
	// Dialect parses and prints statements for the WHERE and row passes.
	Dialect sqlast.Dialect
	// Log receives one line per kept candidate; nil = none.
	Log io.Writer
}

// Size measures a case.
type Size struct {
	Steps, Setup, Transactions int
}

func sizeOf(c *testcase.Case) Size {
	return Size{Steps: len(c.Steps), Setup: len(c.Setup), Transactions: len(testcase.Transactions(c))}
}

func (s Size) String() string {
	return fmt.Sprintf("%d statement%s in %d transaction%s, %d setup statement%s",
		s.Steps, english.S(s.Steps), s.Transactions, english.S(s.Transactions), s.Setup, english.S(s.Setup))
}

// Result is a reduction's outcome.
type Result struct {
	Case          *testcase.Case
	Before, After Size
	// Executions counts the candidate runs; Kept the candidates kept;
	// Runs is how many runs each kept candidate passed.
	Executions, Kept, Runs int
	Elapsed                time.Duration
	// OutOfTime is set when the budget ended the reduction early.
	OutOfTime bool
	// Schedule is a plain execution of Case that gave the finding, and
	// Evidence the finding's bundle from that run: what the reduced case's
	// own report is made of.
	Schedule *executor.Result
	Evidence *report.Bundle
}

// Summary says in one line what the reduction did: the sizes before and
// after, its time and runs, whether the budget ended it, and the file the
// reduced case went to (out; "" for stdout).
func (r *Result) Summary(out string) string {
	line := fmt.Sprintf("%s → %s in %.1f s (%d runs)", r.Before, r.After, r.Elapsed.Seconds(), r.Executions)
	if r.OutOfTime {
		line += "; the --budget ran out"
	}
	if out != "" {
		line += "; written to " + out
	}
	return line
}

// A candidate may run hangFactor times as long as the original, and at
// least minHang, before it counts as hung (and is rejected).
const (
	hangFactor = 10
	minHang    = time.Second
)

// RunError is a failure of a candidate's run that is not the candidate's
// own: a lost connection, an oracle's internal error. It ends a campaign
// like any failed run; other reduction failures leave the bundle as found.
type RunError struct{ Err error }

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// ErrNotReproduced is returned when the original case does not give the
// finding in every one of the runs.
var ErrNotReproduced = errors.New("the case does not give the finding")

type reducer struct {
	t        target.Target
	key      Key
	opt      Options
	deadline time.Time
	res      *Result
	lastRun  *executor.Result // the last run of gives that gave the finding
	// lastEvidence is that run's bundle of the finding.
	lastEvidence *report.Bundle
	// setup are the kinds of the setup statements seen, by text, each
	// carrying its parse (setupKind).
	setup map[string]testcase.Kind
}

// Reduce shrinks c while it keeps giving key's finding on t. c itself must
// give it in every run, or ErrNotReproduced is returned. Errors that are not
// a candidate's own (a lost connection) end the reduction.
func Reduce(ctx context.Context, t target.Target, c *testcase.Case, key Key, opt Options) (*Result, error) {
	if opt.Runs < 1 {
		opt.Runs = 3
	}
	var judges []oracle.CaseOracle
	for _, o := range opt.Oracles {
		if o.Name() == key.Oracle {
			judges = append(judges, o)
		}
	}
	if len(judges) == 0 {
		return nil, fmt.Errorf("the finding is %s's, and %s is not among the oracles", key.Oracle, key.Oracle)
	}
	opt.Oracles = judges
	r := &reducer{t: t, key: key, opt: opt, res: &Result{Before: sizeOf(c), Runs: opt.Runs}}
	start := time.Now()
	if opt.Budget > 0 {
		// The budget bounds every try too: one cut short is not kept.
		r.deadline = start.Add(opt.Budget)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, r.deadline)
		defer cancel()
	}
	defer func() { r.res.Elapsed = time.Since(start) }()
	ok, err := r.gives(ctx, c)
	if err != nil {
		return nil, err
	}
	if !ok && r.outOfTime() {
		return nil, fmt.Errorf("the --budget (%v) ran out before the case gave %s in each of %d runs", opt.Budget, key, opt.Runs)
	}
	// Dropping a COMMIT can leave a statement waiting for a transaction
	// that never ends; such a candidate is rejected once it has run far
	// longer than the original, not after the executor's 30 s.
	hang := max(hangFactor*time.Since(start)/time.Duration(opt.Runs), minHang)
	if limit := r.opt.Exec.HangTimeout; limit > 0 {
		hang = min(hang, limit)
	}
	r.opt.Exec.HangTimeout = hang
	if !ok {
		return nil, fmt.Errorf("%w %s in each of %d runs", ErrNotReproduced, key, opt.Runs)
	}
	r.res.Schedule, r.res.Evidence = r.lastRun, r.lastEvidence
	cur := c
	for progress := true; progress; {
		progress = false
		for _, pass := range passes {
			next, err := r.pass(ctx, cur, pass)
			if err != nil && ctx.Err() == nil {
				return nil, err
			}
			if next != nil && next != cur {
				cur, progress = next, true
			}
			if r.outOfTime() || ctx.Err() != nil {
				r.res.OutOfTime = true
				progress = false
				break
			}
		}
	}
	r.res.Case = cur
	r.res.After = sizeOf(cur)
	return r.res, nil
}

// outOfTime reports whether the budget has run out.
func (r *reducer) outOfTime() bool {
	return !r.deadline.IsZero() && time.Now().After(r.deadline)
}

// pass is one kind of simplification. cand returns candidate i of case c,
// nil when that candidate does not apply, or noMore past the last one. The
// candidates of a pass are tried in order; after a kept one the pass goes
// on from the same index on the smaller case.
type pass struct {
	name string
	cand func(r *reducer, c *testcase.Case, i int) *testcase.Case
	// A list pass (items and drop set instead of cand) removes runs of
	// items at once, halving the run down to one item (ddmin).
	items func(c *testcase.Case) int
	drop  func(c *testcase.Case, from, to int) *testcase.Case
}

var passes = []pass{
	{name: "transactions", cand: dropTransaction},
	{name: "savepoints", cand: dropSavepoint},
	{name: "tables", cand: dropTable},
	{name: "steps", items: func(c *testcase.Case) int { return len(c.Steps) }, drop: dropSteps},
	{name: "setup", items: func(c *testcase.Case) int { return len(c.Setup) }, drop: dropSetup},
	{name: "rows", cand: dropRow},
	{name: "foreign keys", cand: dropForeignKey},
	{name: "where", cand: simplifyExpr},
	{name: "single table", cand: singleTable},
	{name: "schema features", cand: dropSchemaFeature},
	{name: "locks", cand: weakenLock},
	{name: "columns", cand: dropColumn},
	{name: "autocommit to setup", cand: autocommitToSetup},
	{name: "order", cand: swapSteps},
	{name: "literals", cand: simplifyLiteral},
	{name: "connections", cand: renumberConnections},
}

func (r *reducer) pass(ctx context.Context, c *testcase.Case, p pass) (*testcase.Case, error) {
	if p.drop == nil {
		return r.greedy(ctx, c, p.name, func(c *testcase.Case, i int) (*testcase.Case, bool) { return p.candidate(r, c, i) })
	}
	// Candidate i of a run length drops the i-th run of that many items.
	for chunk := max(p.items(c)/2, 1); chunk >= 1; chunk /= 2 {
		var err error
		c, err = r.greedy(ctx, c, p.name, func(c *testcase.Case, i int) (*testcase.Case, bool) {
			from := i * chunk
			if from >= p.items(c) {
				return nil, false
			}
			return p.drop(c, from, min(from+chunk, p.items(c))), true
		})
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// greedy tries c's candidates (next: candidate i and whether there is one)
// in order until the budget runs out: one that gives the finding replaces
// c, and the next try is candidate i of the smaller case.
func (r *reducer) greedy(ctx context.Context, c *testcase.Case, name string, next func(c *testcase.Case, i int) (*testcase.Case, bool)) (*testcase.Case, error) {
	for i := 0; !r.outOfTime() && ctx.Err() == nil; {
		cand, more := next(c, i)
		if !more {
			break
		}
		ok, err := r.try(ctx, name, cand)
		if err != nil {
			return c, err
		}
		if ok {
			c = cand
			continue
		}
		i++
	}
	return c, nil
}

// try runs a candidate (nil or invalid: one that does not apply) and
// reports whether it gives the finding, keeping its run's schedule and
// evidence then.
func (r *reducer) try(ctx context.Context, name string, cand *testcase.Case) (bool, error) {
	if cand == nil || cand.Validate() != nil {
		return false, nil
	}
	ok, err := r.gives(ctx, cand)
	if ok {
		r.res.Kept++
		r.res.Schedule, r.res.Evidence = r.lastRun, r.lastEvidence
		if r.opt.Log != nil {
			fmt.Fprintf(r.opt.Log, "reduce: %s: %s\n", name, sizeOf(cand))
		}
	}
	return ok, err
}

// candidate returns candidate i and whether there was one (a nil candidate
// with more = true is one that does not apply, e.g. an unparsable
// statement).
func (p pass) candidate(r *reducer, c *testcase.Case, i int) (*testcase.Case, bool) {
	cand := p.cand(r, c, i)
	if cand == noMore {
		return nil, false
	}
	return cand, true
}

// noMore ends a pass's candidates.
var noMore = &testcase.Case{}

// gives runs c Runs times and reports whether every run gives the finding.
func (r *reducer) gives(ctx context.Context, c *testcase.Case) (bool, error) {
	for range r.opt.Runs {
		r.res.Executions++
		out, err := oracle.CheckCase(ctx, r.t, c, r.opt.Oracles, r.opt.Exec, false)
		var setup *executor.SetupError
		switch {
		case target.IsFrozen(err):
			return false, &RunError{err}
		case ctx.Err() != nil:
			// The budget (or an interruption) ended the try.
			return false, nil
		case errors.As(err, &setup):
			return false, nil
		case err != nil:
			return false, &RunError{err}
		}
		// The candidate's findings are only matched, never saved: they
		// are no findings of a run.
		report.Sign(out.Findings, out.Evidence)
		i := slices.IndexFunc(out.Findings, r.key.Matches)
		if i < 0 {
			return false, nil
		}
		r.lastRun = out.Result
		r.lastEvidence = nil
		if i < len(out.Evidence) {
			r.lastEvidence = &out.Evidence[i]
		}
	}
	return true, nil
}

// clone copies c deeply enough for a pass to change its statements.
func clone(c *testcase.Case) *testcase.Case {
	d := *c
	d.Setup = slices.Clone(c.Setup)
	d.Steps = slices.Clone(c.Steps)
	d.Comments = nil
	d.Warnings = nil
	if c.ConnIsolation != nil {
		d.ConnIsolation = map[int]target.Level{}
		for conn, l := range c.ConnIsolation {
			d.ConnIsolation[conn] = l
		}
	}
	return &d
}

// tidy drops the per-connection levels of connections that no longer run
// a step; nil for a case left without steps.
func tidy(c *testcase.Case) *testcase.Case {
	if len(c.Steps) == 0 {
		return nil
	}
	used := map[int]bool{}
	for _, s := range c.Steps {
		used[s.Conn] = true
	}
	for conn := range c.ConnIsolation {
		if !used[conn] {
			delete(c.ConnIsolation, conn)
		}
	}
	return c
}

func dropTransaction(_ *reducer, c *testcase.Case, i int) *testcase.Case {
	txns := testcase.Transactions(c)
	if i >= len(txns) || len(txns) < 2 {
		return noMore
	}
	d := clone(c)
	d.Steps = d.Steps[:0]
	for j, s := range c.Steps {
		if !slices.Contains(txns[i].Steps, j) {
			d.Steps = append(d.Steps, s)
		}
	}
	return tidy(d)
}

func dropSteps(c *testcase.Case, from, to int) *testcase.Case {
	d := clone(c)
	d.Steps = slices.Delete(d.Steps, from, to)
	return tidy(d)
}

func dropSetup(c *testcase.Case, from, to int) *testcase.Case {
	d := clone(c)
	d.Setup = slices.Delete(d.Setup, from, to)
	return d
}

var createTableRE = regexp.MustCompile(`(?i)^\s*CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*|"[^"]+"|` + "`[^`]+`" + `)`)

// dropTable removes the i-th table the setup creates and every statement
// that names it.
func dropTable(_ *reducer, c *testcase.Case, i int) *testcase.Case {
	var tables []string
	for _, s := range c.Setup {
		if m := createTableRE.FindStringSubmatch(s); m != nil {
			tables = append(tables, strings.Trim(m[1], "\"`"))
		}
	}
	if i >= len(tables) || len(tables) < 2 {
		return noMore
	}
	names := regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(tables[i]) + `($|[^A-Za-z0-9_])`)
	d := clone(c)
	d.Setup = slices.DeleteFunc(d.Setup, names.MatchString)
	d.Steps = slices.DeleteFunc(d.Steps, func(s testcase.Step) bool { return names.MatchString(s.SQL) })
	return tidy(d)
}

// statement is statement k of c, numbering the setup statements first,
// then the steps, as its kind, which carries its text (Of) and its parse
// (Kind.Stmt): a step's own, a setup statement's from setupKind.
func (r *reducer) statement(c *testcase.Case, k int) (kind testcase.Kind, ok bool) {
	if k < len(c.Setup) {
		return r.setupKind(c.Setup[k]), true
	}
	if k-len(c.Setup) < len(c.Steps) {
		return testcase.KindOf(c.Steps[k-len(c.Setup)]), true
	}
	return testcase.Kind{}, false
}

// setupKind is the kind of setup statement sql. A setup statement is text,
// not a step: the reducer keeps one kind, and so one parse, per text over
// the whole reduction, whose candidates mostly repeat the setup as it is.
func (r *reducer) setupKind(sql string) testcase.Kind {
	k, ok := r.setup[sql]
	if !ok {
		if r.setup == nil {
			r.setup = map[string]testcase.Kind{}
		}
		k = testcase.Classify(sql)
		r.setup[sql] = k
	}
	return k
}

// withStatement is c with statement k (numbered as statement does) sql;
// an edited step gets its new text's kind, which its readers share.
func withStatement(c *testcase.Case, k int, sql string) *testcase.Case {
	d := clone(c)
	if k < len(d.Setup) {
		d.Setup[k] = sql
	} else {
		d.Steps[k-len(d.Setup)].SQL = sql
		d.Steps[k-len(d.Setup)].Kind = testcase.Classify(sql)
	}
	return d
}

// nth finds the statement and the index within it of the i-th
// simplification over the whole case, given how many each statement has
// (count must not change the statement: it is the shared parse). The
// statement comes back as a copy of its own, for the caller to change.
func nth(r *reducer, c *testcase.Case, i int, count func(sqlast.Stmt) int) (k, j int, stmt sqlast.Stmt, ok bool) {
	for k = 0; ; k++ {
		kind, more := r.statement(c, k)
		if !more {
			return 0, 0, nil, false
		}
		s, err := kind.Stmt(r.opt.Dialect)
		if err != nil {
			continue
		}
		n := count(s)
		if i < n {
			return k, i, sqlast.Clone(s), true
		}
		i -= n
	}
}

// dropRow removes one row of a multi-row INSERT … VALUES in the setup.
func dropRow(r *reducer, c *testcase.Case, i int) *testcase.Case {
	rows := func(s sqlast.Stmt) int {
		if ins, ok := s.(*sqlast.Insert); ok && len(ins.Values) > 1 {
			return len(ins.Values)
		}
		return 0
	}
	k, j, s, ok := nth(r, c, i, rows)
	if !ok || k >= len(c.Setup) {
		return noMore
	}
	ins := s.(*sqlast.Insert)
	ins.Values = slices.Delete(ins.Values, j, j+1)
	return withStatement(c, k, sqlast.Format(r.opt.Dialect, ins))
}

// simplifyExpr applies one expression simplification: a WHERE clause
// removed, or an AND/OR replaced by one of its sides.
var simplifyExpr = inPlace(simplifications)

// simplifyLiteral replaces one literal value by a simpler one.
var simplifyLiteral = inPlace(literalSimplifications)

// inPlace makes a pass of the changes list offers per statement (each a
// function that applies one to the parsed statement): candidate i applies
// the i-th over the whole case to a fresh parse.
func inPlace(list func(sqlast.Stmt) []func()) func(*reducer, *testcase.Case, int) *testcase.Case {
	return func(r *reducer, c *testcase.Case, i int) *testcase.Case {
		count := func(s sqlast.Stmt) int { return len(list(s)) }
		k, j, s, ok := nth(r, c, i, count)
		if !ok {
			return noMore
		}
		list(s)[j]()
		return withStatement(c, k, sqlast.Format(r.opt.Dialect, s))
	}
}

// autocommitToSetup moves the i-th autocommit step (a statement outside
// any explicit transaction) to the end of the setup: one connection and
// one step fewer in the schedule.
func autocommitToSetup(_ *reducer, c *testcase.Case, i int) *testcase.Case {
	n := 0
	for _, txn := range testcase.Transactions(c) {
		if txn.Explicit || len(txn.Steps) != 1 {
			continue
		}
		step := c.Steps[txn.Steps[0]]
		if testcase.KindOf(step).Control != testcase.NotControl {
			continue
		}
		if n == i {
			d := clone(c)
			d.Setup = append(d.Setup, step.SQL)
			d.Steps = slices.Delete(d.Steps, txn.Steps[0], txn.Steps[0]+1)
			return tidy(d)
		}
		n++
	}
	return noMore
}

// swapSteps swaps steps i and i+1 when that makes the submitted order
// switch between connections less often (nil when it does not), so that
// kept swaps leave each transaction's statements closer together and never
// undo each other.
func swapSteps(_ *reducer, c *testcase.Case, i int) *testcase.Case {
	if i+1 >= len(c.Steps) {
		return noMore
	}
	if c.Steps[i].Conn == c.Steps[i+1].Conn {
		return nil
	}
	d := clone(c)
	d.Steps[i], d.Steps[i+1] = d.Steps[i+1], d.Steps[i]
	if switches(d) >= switches(c) {
		return nil
	}
	return d
}

// switches counts the places where the submitted order moves to another
// connection.
func switches(c *testcase.Case) int {
	n := 0
	for i := 1; i < len(c.Steps); i++ {
		if c.Steps[i].Conn != c.Steps[i-1].Conn {
			n++
		}
	}
	return n
}

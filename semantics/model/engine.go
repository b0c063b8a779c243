package model

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Evaluator runs SQL on private copies of the case's tables: temporary
// tables with the case's names (so the statement text runs unchanged) plus a
// hidden version column. It is the DBMS itself, so results follow its own
// comparison, collation and type rules.
type Evaluator interface {
	Exec(ctx context.Context, sql string) (*target.Result, error)
}

// vidColumn is the column that carries a version's id in the evaluator's
// tables; candPrefix names the constraint-free tables that hold several
// versions of a row at once.
const (
	vidColumn  = "txlab_vid"
	candPrefix = "txlab_cand_"
	// subPrefix names the tables that hold the view a statement's
	// subqueries read (InnoDB: a locking read's subqueries are plain reads).
	subPrefix = "txlab_sub_"
)

// baseName is the case's table behind an evaluator table.
func baseName(table string) string {
	return strings.TrimPrefix(strings.TrimPrefix(table, candPrefix), subPrefix)
}

// Stmt is one statement of the actual schedule, as the executor recorded it.
type Stmt struct {
	Conn int
	Step int // index in the case's steps
	SQL  string
	// Start is the position of the statement's first event (a blocked one
	// counts), End that of the event that completed it.
	Start, End int
	Err        *target.Error
	// Waiting are the connections that had a statement waiting for a lock
	// when this one started: if this statement needs their locks, the
	// DBMS may end the deadlock by aborting them instead of waiting.
	Waiting  []int
	Columns  []string
	Rows     []target.Row
	Affected int64
	// Kind is the statement's kind as the case's step carried it, with
	// the step's parse (testcase.Kind.Stmt); zero when unknown.
	Kind testcase.Kind
}

// Blocked reports whether the statement waited.
func (s *Stmt) Blocked() bool { return s.End > s.Start }

// Deviation is a statement whose outcome the model does not permit (or
// permits only through a variation).
type Deviation struct {
	// Kind: incorrect-result, incorrect-affected, incorrect-blocking,
	// missing-error, incorrect-final-state.
	Kind    string
	Verdict verdict.Verdict
	Rule    verdict.Rule
	Stmt    *Stmt // nil for the final state
	// StmtKind is the deviating statement's kind (SELECT, UPDATE, …).
	StmtKind string
	// Want are the rows the statement must return, May the rows it may
	// return as well, Got what it returned (incorrect-result; for
	// incorrect-final-state the table's rows).
	Want, May, Got []target.Row
	// WantAffected is the row count the statement's documented view gives
	// (incorrect-affected; nil when the deviation does not know it).
	WantAffected *int64
	Table        string
	Text         string
}

// Engine replays one case's actual schedule through the rules.
type Engine struct {
	rules   Rules
	dialect sqlast.Dialect
	ev      Evaluator
	h       *History
	schema  map[string]*sqlast.CreateTable
	// savepointUndone: a ROLLBACK TO SAVEPOINT undid versions or locks.
	savepointUndone bool
	// laterUnique are the UNIQUE indexes the setup created after a table,
	// laterIndexes every index it created after a table.
	laterUnique  map[string][][]string
	laterIndexes map[string][][]string
	// inlineUnique are the UNIQUE indexes the setup creates after a table,
	// which the evaluator's copy has from its CREATE.
	inlineUnique map[string][][]string
	feat         *schemaFeat // schemafeat.go
	txns         []*Txn
	open         map[int]*Txn // explicit transaction per connection
	loaded       map[string][]int
	halted       string
	haltReason   string
	// reverse: the SELECT being judged may scan an index backwards
	// (Rules.ReverseScan).
	reverse bool
	// subquery: the views being computed are a statement's subqueries'
	// (Rules.SubquerySnapshot).
	subquery bool
	// noSemiConsistent: the view being computed is a joined write's
	// target, which the rules' semi-consistent read does not reach
	// (Rules.Joins).
	noSemiConsistent bool
	// hideFrom, when above 0, hides the statement's own versions from
	// that one on from the views of its subqueries: the second part of a
	// write of two tables joins them as they were (runParts).
	hideFrom int
	// affected is the count of the last write on its view (-1: none).
	affected int64
	unsure   bool
	nextTxn  int
	// script are the alternatives to take at the choice points of a
	// replay, in order (0 past its end); points the number of
	// alternatives each choice point met had (see choose).
	script []int
	points []int
	// lockRequests are the LOCK TABLE statements met so far, txnEnds
	// where each connection ran COMMIT or ROLLBACK (Rules.TableLocks).
	lockRequests []lockRequest
	txnEnds      map[int][]int
	// restricts are the foreign keys whose check of the statement being
	// judged (restrictStmt), a child's write or a parent's DELETE or key
	// UPDATE, the engine makes once the statement has run (fk_trigger.go).
	restricts    []fkPart
	restrictStmt sqlast.Stmt
	// fkAfter are the foreign keys whose InnoDB check or action the
	// statement being judged sets off, followed once its write is applied
	// (fk_immediate.go).
	fkAfter []innodbFK
}

// maxChoice bounds the alternatives of one choice point: a write whose
// rows have more possible views than this leaves the case undecided.
const maxChoice = 8

// choose takes the next choice point, of n alternatives, and returns the
// one this replay follows: the script's, or the first.
func (e *Engine) choose(n int) int {
	k := len(e.points)
	e.points = append(e.points, n)
	if k < len(e.script) && e.script[k] < n {
		return e.script[k]
	}
	return 0
}

// nextScript is the script of the replay after the one that followed
// script and met the choice points points, in depth-first order; false
// when every combination was followed.
func nextScript(script, points []int) ([]int, bool) {
	at := func(i int) int {
		if i < len(script) {
			return script[i]
		}
		return 0
	}
	for i := len(points) - 1; i >= 0; i-- {
		if at(i)+1 < points[i] {
			next := make([]int, i+1)
			for j := range i {
				next[j] = at(j)
			}
			next[i] = at(i) + 1
			return next, true
		}
	}
	return nil, false
}

// NewEngine makes an engine for one case.
func NewEngine(r Rules, d sqlast.Dialect, ev Evaluator) *Engine {
	return &Engine{rules: r, dialect: d, ev: ev, h: newHistory(), schema: map[string]*sqlast.CreateTable{},
		open: map[int]*Txn{}, loaded: map[string][]int{}, nextTxn: 1}
}

// Halted says why the engine stopped judging ("" while it judges): a
// statement it cannot interpret or an outcome it cannot decide. What
// follows such a statement is not judged, never guessed.
func (e *Engine) Halted() string { return e.halted }

// HaltReason is Halted's short form, the same for every case that stopped
// for the same cause ("open rows: UPDATE", "not understood: SELECT near
// SKIP"): a campaign counts its cases by it.
func (e *Engine) HaltReason() string { return e.haltReason }

// Stop makes the engine stop judging, for a reason the caller knows (the
// schedule's order is not known from here on): reason is the short form,
// text the sentence.
func (e *Engine) Stop(reason, text string) { e.halt(reason, "%s", text) }

// halt stops the judging for the first reason given.
func (e *Engine) halt(reason, format string, args ...any) {
	if e.halted == "" {
		e.halted = fmt.Sprintf(format, args...)
		e.haltReason = reason
	}
}

// deviated is the halt that follows a deviation: not a reason a case is
// left undecided, for the deviation decides it.
const deviated = "deviation"

// unmodelled is the halt reason "not modelled: FEATURE" for a statement
// that uses a feature (package features), "" for one that uses none: a
// campaign then counts its undecided cases by the feature to model next.
func unmodelled(sql string, setup bool) string {
	if f := features.InStatement(sql, setup); len(f) > 0 {
		return "not modelled: " + f[0]
	}
	return ""
}

// about is a halt reason naming the statement's kind: "cause: KIND".
func about(cause, sql string) string {
	return cause + ": " + testcase.Classify(sql).Signature()
}

// notUnderstood is the halt reason for a statement the parser rejects: the
// feature it uses that the model does not know ("not modelled: merge"), or
// else its kind and the word the parser stopped at.
func notUnderstood(cause, sql string, err error) string {
	if r := unmodelled(sql, strings.HasPrefix(cause, "setup")); r != "" {
		return r
	}
	r := about(cause, sql)
	var pe *sqlast.ParseError
	if errors.As(err, &pe) && pe.Offset > 0 && pe.Offset < len(sql) {
		if f := strings.Fields(sql[pe.Offset:]); len(f) > 0 {
			r += " near " + strings.ToUpper(strings.Trim(f[0], "(),;"))
		}
	}
	return r
}

// fork copies an engine the setup has just prepared, so that one schedule
// can be replayed in several orders from the same start. The copies share
// the evaluator, one at a time: a copy starts with nothing loaded, so it
// loads every table it reads.
func (e *Engine) fork() *Engine {
	c := *e
	c.h = e.h.clone()
	c.txns = nil
	for _, t := range e.txns {
		c.txns = append(c.txns, c.h.txn(t))
	}
	c.open = map[int]*Txn{}
	for conn, t := range e.open {
		c.open[conn] = c.h.txn(t)
	}
	c.loaded = map[string][]int{}
	c.script, c.points = nil, nil
	c.lockRequests, c.txnEnds = nil, nil
	return &c
}

// Fork is a copy of an engine the setup has just prepared (fork) that
// takes script's alternatives at the choice points it meets: the replays
// of one schedule, in each order and each choice of the rows the rules
// leave open, start from one setup.
func (e *Engine) Fork(script []int) *Engine {
	c := e.fork()
	c.script = script
	return c
}

// NextScript is the script of the replay after this one, which met the
// choice points it met, in depth-first order (nextScript); false when
// every combination was followed.
func (e *Engine) NextScript() ([]int, bool) { return nextScript(e.script, e.points) }

// Rules are the rules the engine judges by.
func (e *Engine) Rules() Rules { return e.rules }

// Tables lists the temporary tables the engine created, for cleanup.
func (e *Engine) Tables() []string {
	var out []string
	for _, t := range e.h.tables {
		out = append(out, t, candPrefix+t, subPrefix+t)
	}
	return out
}

func (e *Engine) q(name string) string { return sqlast.QuoteIdent(e.dialect, name) }

// Setup runs the case's setup statements on the evaluator and records the
// rows they leave as the initial versions.
func (e *Engine) Setup(ctx context.Context, stmts []string) error {
	e.inlineUnique = map[string][][]string{}
	e.feat = nil
	parsed := make([]sqlast.Stmt, len(stmts))
	errs := make([]error, len(stmts))
	for i, s := range stmts {
		parsed[i], errs[i] = parseSetup(e.dialect, s)
		if ci, ok := parsed[i].(*sqlast.CreateIndex); ok && ci.Unique && ci.Where == nil && ci.Exprs == nil {
			e.inlineUnique[ci.Table] = append(e.inlineUnique[ci.Table], ci.Columns)
		}
	}
	for i, s := range stmts {
		st, err := parsed[i], errs[i]
		if err != nil {
			e.halt(notUnderstood("setup not understood", s, err), "setup statement not understood: %s", s)
			return nil
		}
		if handled, err := e.setupFeature(ctx, st, s); err != nil || handled {
			if err != nil || e.halted != "" {
				return err
			}
			continue
		}
		switch st := st.(type) {
		case *sqlast.CreateTable:
			if typ := unheldType(e.dialect, s); typ != "" {
				e.halt("setup: column type "+typ, "the model's copy of table %s cannot hold its column type %s (a DECIMAL needs its size)", st.Name, typ)
				return nil
			}
			if e.inlineReferencesHalt(st) {
				return nil
			}
			if err := e.createTable(ctx, st); err != nil {
				return err
			}
		case *sqlast.CreateIndex:
			// A UNIQUE index is part of its table's definition in the
			// evaluator (createTable): TiDB creates no index on a
			// temporary table afterwards. An index that is not UNIQUE
			// changes no result, so one the evaluator refuses is left out.
			if e.laterIndexes == nil {
				e.laterIndexes = map[string][][]string{}
			}
			e.laterIndexes[st.Table] = append(e.laterIndexes[st.Table], featureIndexColumns(st))
			if st.Unique && st.Where == nil && len(st.Exprs) == 0 {
				// A partial or expression index is no key: no foreign key
				// can use it (PostgreSQL 13.3.2), and no clustered index
				// is one.
				if e.laterUnique == nil {
					e.laterUnique = map[string][][]string{}
				}
				e.laterUnique[st.Table] = append(e.laterUnique[st.Table], st.Columns)
			}
			if st.Unique || e.schema[st.Table] == nil {
				break
			}
			if _, err := e.ev.Exec(ctx, s); err != nil && target.AsError(err) == nil {
				return fmt.Errorf("model evaluator: %w", err)
			}
		case *sqlast.Insert:
			sql, ok := e.withColumns(st)
			if !ok {
				e.halt(about("setup not understood", s), "setup statement not understood: %s", s)
				return nil
			}
			if _, err := e.ev.Exec(ctx, sql); err != nil {
				e.halt(about("setup fails on the model's tables", s), "setup statement fails on the model's tables: %v", err)
				return nil
			}
		default:
			if _, err := e.ev.Exec(ctx, s); err != nil {
				e.halt(about("setup fails on the model's tables", s), "setup statement fails on the model's tables: %v", err)
				return nil
			}
		}
	}
	setup := &Txn{ID: 0, Snapshot: 0, CommitAt: -1, AbortAt: never}
	e.txns = append(e.txns, setup)
	for _, name := range e.h.tables {
		rows, err := e.readBack(ctx, name)
		if err != nil {
			return settle(err)
		}
		for _, r := range rows {
			e.h.insert(name, r.vals, setup)
		}
		e.loaded[name] = nil
		delete(e.loaded, name)
	}
	return nil
}

func (e *Engine) createTable(ctx context.Context, ct *sqlast.CreateTable) error {
	main := withoutForeignKeys(*ct)
	main.Columns = nil
	for _, c := range withoutForeignKeys(*ct).Columns {
		main.Columns = append(main.Columns, copyColumn(c))
	}
	main.Columns = append(main.Columns, sqlast.ColumnDef{Name: vidColumn, Type: sqlast.TypeInt})
	main.Uniques = append(slices.Clone(ct.Uniques), e.inlineUnique[ct.Name]...)
	cand := sqlast.CreateTable{Name: candPrefix + ct.Name}
	for _, c := range main.Columns {
		cand.Columns = append(cand.Columns, sqlast.ColumnDef{Name: c.Name, Type: c.Type})
	}
	sub := cand
	sub.Name = subPrefix + ct.Name
	for _, t := range []*sqlast.CreateTable{&main, &cand, &sub} {
		sql := sqlast.Format(e.dialect, t)
		sql = "CREATE TEMPORARY TABLE" + strings.TrimPrefix(sql, "CREATE TABLE")
		if _, err := e.ev.Exec(ctx, sql); err != nil {
			e.halt("setup: a table the model cannot copy", "the model cannot create table %s: %v", ct.Name, err)
			return nil
		}
	}
	e.schema[ct.Name] = ct
	e.h.addTable(ct.Name)
	return nil
}

// bareDecimal matches a DECIMAL or NUMERIC written without its size: the
// parsed column keeps no size then and renders DECIMAL(10,2), where the
// MySQL family means DECIMAL(10,0) and PostgreSQL any precision. Other
// sizes are kept (sqlast.ColumnDef.Size), and TEXT stays TEXT.
var bareDecimal = regexp.MustCompile(`(?i)\b(DECIMAL|NUMERIC)\b\s*(?:[^\s(]|$)`)

// unheldType returns a column type of a CREATE TABLE the model's copy would
// change (a bare DECIMAL), or "": none where sizes change nothing (SQLite).
func unheldType(d sqlast.Dialect, create string) string {
	if !d.SizedTypes() {
		return ""
	}
	if m := bareDecimal.FindStringSubmatch(create); m != nil {
		return m[1]
	}
	return ""
}

// parseSetup parses a setup statement. ALTER TABLE … ADD [UNIQUE]
// INDEX|KEY|UNIQUE, which Parse does not take, comes back as the CREATE
// INDEX it amounts to; an added PRIMARY KEY does not (in InnoDB it changes
// the index the table is clustered by, which the model does not follow),
// and fails with Parse's error.
func parseSetup(d sqlast.Dialect, sql string) (sqlast.Stmt, error) {
	st, err := sqlast.Parse(d, sql) // setup statements are text, not steps: Setup parses each once
	if err == nil {
		return st, nil
	}
	idx, ierr := sqlast.ReadIndex(d, sql)
	if ierr != nil || idx.Primary || len(idx.Columns) == 0 {
		return nil, err
	}
	return &sqlast.CreateIndex{Table: idx.Table, Columns: idx.Columns, Unique: idx.Unique}, nil
}

// withColumns renders an INSERT with its column list spelled out, so the
// version column takes its default.
func (e *Engine) withColumns(ins *sqlast.Insert) (string, bool) {
	ct := e.schema[ins.Table]
	if ct == nil {
		return "", false
	}
	c := *ins
	if len(c.Columns) == 0 && hasGenerated(ct) {
		return "", false // its values are for the stored columns, by position
	}
	if len(c.Columns) == 0 {
		for _, col := range ct.Columns {
			c.Columns = append(c.Columns, col.Name)
		}
	}
	if sel, ok := c.Select.(*sqlast.Select); ok && len(sel.Items) == 1 && sel.Items[0].Star && len(sel.From) == 1 {
		src, ok := sel.From[0].(*sqlast.Table)
		if !ok || e.schema[src.Name] == nil {
			return "", false
		}
		s := *sel
		s.Items = nil
		for _, col := range e.schema[src.Name].Columns {
			s.Items = append(s.Items, sqlast.SelectItem{Expr: &sqlast.ColumnRef{Column: col.Name}})
		}
		c.Select = &s
	}
	return sqlast.Format(e.dialect, &c), true
}

type stored struct {
	vid  int // 0: NULL (a row the evaluator inserted)
	vals target.Row
}

// readBack reads the evaluator's copy of a table.
func (e *Engine) readBack(ctx context.Context, table string) ([]stored, error) {
	ct := e.schema[table]
	cols := []string{e.q(vidColumn)}
	for _, c := range ct.Columns {
		cols = append(cols, e.q(c.Name))
	}
	res, err := e.ev.Exec(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+e.q(table))
	if err != nil {
		return nil, e.evalErr(err)
	}
	out := make([]stored, 0, len(res.Rows))
	for _, r := range res.Rows {
		s := stored{vals: r[1:]}
		if !r[0].Null {
			fmt.Sscan(r[0].S, &s.vid)
		}
		out = append(out, s)
	}
	return out, nil
}

// errHalted ends the judging of a case without failing it.
var errHalted = errors.New("model halted")

// evalErr turns a statement the DBMS rejects on the model's tables (a view
// that breaks a unique key: a snapshot beside the transaction's own writes)
// into a halt, and a failure of the evaluator session itself into an
// infrastructure error.
func (e *Engine) evalErr(err error) error {
	if te := target.AsError(err); te != nil && te.Class != target.ClassConnection {
		e.halt("a view the model's copy of the table cannot hold", "the model cannot hold this view in the DBMS's tables: %v", te)
		return errHalted
	}
	return fmt.Errorf("model evaluator: %w", err)
}

// settle maps errHalted to no error.
func settle(err error) error {
	if errors.Is(err, errHalted) {
		return nil
	}
	return err
}

// load makes the evaluator's table hold exactly versions vs (nil entries
// skipped); table may be a candidate table.
func (e *Engine) load(ctx context.Context, table string, vs []*Version) error {
	ids := make([]int, 0, len(vs))
	for _, v := range vs {
		if v != nil {
			ids = append(ids, v.ID)
		}
	}
	if old, ok := e.loaded[table]; ok && slices.Equal(old, ids) {
		return nil
	}
	delete(e.loaded, table)
	if _, err := e.ev.Exec(ctx, "DELETE FROM "+e.q(table)); err != nil {
		return e.evalErr(err)
	}
	ct := e.schema[baseName(table)]
	// The copy computes its generated columns itself (the others hold
	// plain columns).
	skip := func(c sqlast.ColumnDef) bool { return table == ct.Name && c.Generated != nil }
	// A MySQL-family AUTO_INCREMENT column numbers an inserted 0 anew
	// (unless sql_mode has NO_AUTO_VALUE_ON_ZERO: MySQL 8.0 manual 5.1.11,
	// "Server SQL Modes"; TiDB likewise), while an UPDATE may have written
	// one: such versions go in last, and an UPDATE writes their 0 back.
	zero := e.autoZero(table, ct)
	var zeroed []*Version
	if len(ids) > 0 {
		cols := []string{}
		for _, c := range ct.Columns {
			if !skip(c) {
				cols = append(cols, e.q(c.Name))
			}
		}
		cols = append(cols, e.q(vidColumn))
		var b strings.Builder
		b.WriteString("INSERT INTO " + e.q(table) + " (" + strings.Join(cols, ", ") + ") VALUES ")
		vs = slices.Clone(vs)
		slices.SortStableFunc(vs, func(a, b *Version) int { return cmpBool(zero(a), zero(b)) })
		n := 0
		for _, v := range vs {
			if v == nil {
				continue
			}
			if zero(v) {
				zeroed = append(zeroed, v)
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString("(")
			for i, val := range v.Values {
				if i < len(ct.Columns) && skip(ct.Columns[i]) {
					continue
				}
				if val.Null {
					b.WriteString("NULL, ")
				} else {
					b.WriteString(sqlast.QuoteString(e.dialect, val.S) + ", ")
				}
			}
			fmt.Fprintf(&b, "%d)", v.ID)
		}
		if _, err := e.ev.Exec(ctx, b.String()); err != nil {
			return e.evalErr(err)
		}
	}
	for _, v := range zeroed {
		var set []string
		for i, c := range ct.Columns {
			if c.AutoIncrement && i < len(v.Values) && isZero(v.Values[i]) {
				set = append(set, e.q(c.Name)+" = 0")
			}
		}
		sql := fmt.Sprintf("UPDATE %s SET %s WHERE %s = %d", e.q(table), strings.Join(set, ", "), e.q(vidColumn), v.ID)
		if _, err := e.ev.Exec(ctx, sql); err != nil {
			return e.evalErr(err)
		}
	}
	e.loaded[table] = ids
	return nil
}

// autoZero returns whether a version of table holds 0 in a column the
// evaluator's copy numbers anew when 0 is inserted: an AUTO_INCREMENT
// column of the main copy where the dialect numbers a 0 (the candidate
// tables have plain columns).
func (e *Engine) autoZero(table string, ct *sqlast.CreateTable) func(*Version) bool {
	var auto []int
	if e.dialect.AutoIncrementOnZero() && table == ct.Name {
		for i, c := range ct.Columns {
			if c.AutoIncrement {
				auto = append(auto, i)
			}
		}
	}
	return func(v *Version) bool {
		return v != nil && slices.ContainsFunc(auto, func(i int) bool { return i < len(v.Values) && isZero(v.Values[i]) })
	}
}

func isZero(v target.Value) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(v.S), 64)
	return !v.Null && err == nil && f == 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// txnOf returns the transaction a statement of conn belongs to.
func (e *Engine) txnOf(conn int) *Txn {
	if t := e.open[conn]; t != nil {
		return t
	}
	t := &Txn{ID: e.nextTxn, Conn: conn, Snapshot: -1, CommitAt: never, AbortAt: never}
	e.setMode(t, e.rules.Autocommit)
	e.nextTxn++
	e.txns = append(e.txns, t)
	return t
}

// setMode makes t follow the rules of transaction mode m ("": the
// engine's own).
func (e *Engine) setMode(t *Txn, m string) {
	t.rules = e.rules.Modes[m]
	t.noLocks = !e.rulesOf(t).RowLocks
}

// rulesOf returns the rules t follows.
func (e *Engine) rulesOf(t *Txn) *Rules {
	if t.rules != nil {
		return t.rules
	}
	return &e.rules
}

// beginMode is the transaction mode a BEGIN names (TiDB's BEGIN
// PESSIMISTIC, BEGIN OPTIMISTIC), or "".
func beginMode(sql string) string {
	f := strings.Fields(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(sql), ";")))
	if len(f) == 2 && f[0] == "begin" {
		return f[1]
	}
	return ""
}

// begin starts the explicit transaction t with a BEGIN statement.
func (e *Engine) begin(t *Txn, st *Stmt) {
	t.Explicit = true
	e.open[st.Conn] = t
	mode := beginMode(st.SQL)
	if e.rules.Modes[mode] == nil {
		mode = ""
	}
	e.setMode(t, mode)
	if e.rulesOf(t).SnapshotAt == AtBegin {
		t.Snapshot, t.SnapshotUntil, t.pinned = st.Start, st.End, true
	}
}

// commitConflict reports a COMMIT that succeeded although its
// transaction's rules require it to fail (Rules.CommitConflict): a row the
// transaction wrote has a version another transaction committed after
// its snapshot and before this COMMIT. An UPDATE that changed nothing,
// whichever side made it, decides nothing (NoOpNoVersion).
func (e *Engine) commitConflict(t *Txn, st *Stmt) *Deviation {
	r := e.rulesOf(t)
	if r.CommitConflict == "" || st.Err != nil || t.Snapshot < 0 {
		return nil
	}
	snap := max(t.Snapshot, t.SnapshotUntil)
	for _, name := range e.h.tables {
		for _, row := range e.h.rows[name] {
			mine := false
			for _, v := range row.Versions {
				mine = mine || v.Txn == t && !(v.NoOp && r.NoOpNoVersion)
			}
			if !mine {
				continue
			}
			for _, v := range row.Versions {
				o := v.Txn
				if o == t || o.ID == 0 || v.NoOp && r.NoOpNoVersion || o.CommitAt < snap || o.CommitAt >= st.End {
					continue
				}
				d := &Deviation{Kind: "missing-error", Verdict: verdict.Bug, Rule: r.StatementView(), Stmt: st, StmtKind: "COMMIT", Table: name,
					Text: fmt.Sprintf("connection %d's COMMIT succeeded, but its transaction wrote a row of %s that transaction T%d changed and committed after its snapshot; %s documents a %s error at commit",
						st.Conn, name, o.ID, r.Name(), r.CommitConflict)}
				e.halt(deviated, "stopped at the first deviation")
				return d
			}
		}
	}
	return nil
}

// doomedCommit judges the COMMIT of a transaction whose INSERT
// duplicated a key of its view with the unique check deferred
// (Rules.LazyUnique): it must fail. One that succeeded committed a
// duplicate of a committed key; where the duplicate may be of the
// transaction's own row (whether TiDB checks its own buffer at once is
// not documented), the model stops undecided instead.
func (e *Engine) doomedCommit(t *Txn, st *Stmt) *Deviation {
	e.end(t, st.End, false)
	if st.Err != nil {
		return nil
	}
	r := e.rulesOf(t)
	if t.doomedOwn {
		e.halt("deferred unique check: COMMIT", "connection %d's COMMIT succeeded after an INSERT that duplicated a key its transaction may have written itself", st.Conn)
		return nil
	}
	d := &Deviation{Kind: "missing-error", Verdict: verdict.Bug, Rule: r.Rule("unique-check-at-commit", fmt.Sprintf("%s checks an INSERT's unique keys at COMMIT: a transaction that inserted a key its snapshot already holds must fail to commit", r.Name())),
		Stmt: st, StmtKind: "COMMIT",
		Text: fmt.Sprintf("connection %d's COMMIT succeeded, but its transaction inserted a key its snapshot already held; %s documents a %s error at commit", st.Conn, r.Name(), target.ClassDuplicateKey)}
	e.halt(deviated, "stopped at the first deviation")
	return d
}

// undoesDoom reports whether st is a ROLLBACK TO SAVEPOINT that undoes
// the INSERT which doomed t (Txn.doomed): one that succeeded, to a
// savepoint set before that INSERT. It clears the doom; the rollback
// itself is then applied as any other (TiDB docs, SAVEPOINT: ROLLBACK TO
// SAVEPOINT undoes the changes made after the savepoint, in optimistic
// transactions too, so the COMMIT checks no undone key).
func (e *Engine) undoesDoom(t *Txn, st *Stmt) bool {
	op, name := testcase.SavepointOf(st.SQL)
	if op != testcase.SavepointRollback || st.Err != nil {
		return false
	}
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if t.savepoints[i].name == name {
			if t.savepoints[i].at >= t.doomedAt {
				return false
			}
			t.doomed, t.doomedOwn = false, false
			return true
		}
	}
	return false
}

func (e *Engine) end(t *Txn, at int, commit bool) {
	if commit {
		t.CommitAt = at
	} else {
		t.AbortAt = at
	}
	if e.open[t.Conn] == t {
		delete(e.open, t.Conn)
	}
}

// readsDirty reports whether s reads any table at its latest version,
// uncommitted changes included.
func (e *Engine) readsDirty(s *stmtInfo) bool {
	return e.rules.Target[s.kind] == Dirty || (len(s.subs) > 0 || len(s.reads) > 0) && e.rules.Source[s.kind] == Dirty
}

// Step judges one statement of the schedule, in completion order. It
// returns the deviation, if the statement has one; an error only when the
// evaluator itself fails.
func (e *Engine) Step(ctx context.Context, st *Stmt) (*Deviation, error) {
	if e.halted != "" {
		return nil, nil
	}
	if dev, ok := e.controlStep(st); ok {
		return dev, nil
	}
	t := e.txnOf(st.Conn)
	if t.doomed && !e.undoesDoom(t, st) {
		// Not followed: the transaction's view holds a duplicate key.
		if st.Err != nil && st.Err.RolledBack {
			e.end(t, st.End, false)
		}
		return nil, nil
	}
	// The statement follows its transaction's rules (its mode's).
	base := e.rules
	e.rules = *e.rulesOf(t)
	defer func() { e.rules = base }()
	if !e.rules.RowLocks {
		// Without row locks a "blocked" statement was refused (busy) and
		// retried: it ran when it completed.
		st.Start = st.End
	}
	if e.savepointOp(t, st) {
		return nil, nil
	}
	parsed, err := st.Kind.For(st.SQL).OwnStmt(e.dialect) // a copy: the model changes it (stars expanded in place)
	if err != nil {
		e.halt(notUnderstood("not understood", st.SQL, err), "statement not understood: %s", st.SQL)
		return nil, nil
	}
	if dev, ok := e.tableLockStep(t, st, parsed); !ok {
		return dev, nil
	}
	if w, counts := e.cteAlone(parsed); w != nil {
		parsed, st = w, cteStmt(st, counts)
	}
	s, ok := e.follow(t, st, parsed)
	if !ok {
		return nil, nil
	}
	parts := []*stmtInfo{s}
	if s.then != nil {
		parts = append(parts, s.then)
	}
	for _, p := range parts {
		e.scan(t, p)
	}
	t.ran = true
	e.takeSnapshot(t, st, s)
	e.h.now = st.End
	for _, p := range parts {
		e.noteWaitedOn(t, st, p)
	}
	if st.Err != nil {
		// A statement that failed had no effect. Which errors a statement
		// may return is not judged yet (only the errors a write must
		// return, in runWrite); an abort ends the transaction.
		if st.Err.RolledBack || !t.Explicit {
			e.end(t, st.End, false)
		} else {
			for _, p := range parts {
				e.failedLeft(t, p)
			}
		}
		return nil, nil
	}
	for _, p := range parts {
		if reason, text := e.stepFeature(p.ast); reason != "" {
			e.halt(reason, "%s: %s", st.SQL, text)
			return nil, nil
		}
	}
	var dev *Deviation
	if s.then != nil {
		dev, err = e.runParts(ctx, t, st, parts)
	} else {
		dev, err = e.run(ctx, t, st, s)
	}
	if err != nil {
		return nil, settle(err)
	}
	return e.afterRun(t, st, s, dev), nil
}

// controlStep follows BEGIN, COMMIT and ROLLBACK (ok), where a COMMIT's
// checks may deviate: a doomed transaction's, a first committer's
// conflict, the deferred foreign-key checks.
func (e *Engine) controlStep(st *Stmt) (dev *Deviation, ok bool) {
	c := testcase.ControlOf(st.SQL)
	if c == testcase.Commit || c == testcase.Rollback {
		e.noteTxnEnd(st.Conn, st.End)
	}
	switch c {
	case testcase.Begin:
		if st.Err == nil {
			e.begin(e.txnOf(st.Conn), st)
		}
		return nil, true
	case testcase.Commit:
		if t := e.open[st.Conn]; t != nil {
			if t.doomed {
				return e.doomedCommit(t, st), true
			}
			dev := e.commitConflict(t, st)
			if dev == nil {
				dev = e.deferredCheck(t, st)
			}
			e.end(t, st.End, st.Err == nil)
			return dev, true
		}
		return nil, true
	case testcase.Rollback:
		if t := e.open[st.Conn]; t != nil {
			e.end(t, st.End, false)
		}
		return nil, true
	}
	return nil, false
}

// savepointOp follows SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE
// SAVEPOINT, and reports whether st was one.
func (e *Engine) savepointOp(t *Txn, st *Stmt) bool {
	op, name := testcase.SavepointOf(st.SQL)
	if op == "" {
		return false
	}
	switch {
	case st.Err != nil:
		if st.Err.RolledBack || !t.Explicit {
			e.end(t, st.End, false)
		}
	case !t.Explicit:
		// Outside a transaction a savepoint holds nothing.
		e.end(t, st.End, true)
	default:
		e.savepointStep(t, st, op, name)
	}
	return true
}

// tableLockStep follows LOCK TABLE and the table locks a statement takes
// where the rules have them (Rules.TableLocks); false, with the
// deviation, where the statement is judged no further.
func (e *Engine) tableLockStep(t *Txn, st *Stmt, parsed sqlast.Stmt) (*Deviation, bool) {
	if lt, ok := parsed.(*sqlast.LockTable); ok {
		if !e.rules.TableLocks {
			e.halt("not modelled: lock-table", "table locks are not modelled for %s: %s", e.rules.DBMS, st.SQL)
			return nil, false
		}
		return e.lockTableStep(t, st, lt), false
	}
	if e.rules.TableLocks {
		return e.tableLocksFor(t, st, parsed)
	}
	return nil, true
}

// follow classifies parsed, the statement st of t, for the views that
// judge it; false, having stopped the engine, where the model does not
// follow it: a write across tables it does not replay as a single-table
// one, a foreign key's part it does not follow, a statement kind it does
// not know.
func (e *Engine) follow(t *Txn, st *Stmt, parsed sqlast.Stmt) (*stmtInfo, bool) {
	if m, ok := parsed.(*sqlast.Merge); ok {
		return e.followMerge(t, st, m)
	}
	var joined *joinedWrite
	var then *stmtInfo
	if f := sqlast.CrossTable(parsed); f != "" {
		parts, js, reason := e.joinedParts(parsed, f)
		if reason != "" {
			e.halt(reason, "%s is not modelled: %s", f, st.SQL)
			return nil, false
		}
		parsed, joined = parts[0], js[0]
		if len(parts) > 1 {
			// The second table's part, followed after the first. A
			// foreign key's checks and actions are followed per
			// statement: one that either part meets stops the model.
			for _, k := range e.foreignKeys() {
				for _, p := range parts {
					if k.affects(p) != "" || e.innodbIndexChecks(&k, p) != "" {
						e.halt("not modelled: "+f+" of several tables under a foreign key", "%s is not modelled: %s", f, st.SQL)
						return nil, false
					}
				}
			}
			s2, ok := e.classify(parts[1], t)
			if !ok {
				e.halt("not modelled: "+f, "%s is not modelled: %s", f, st.SQL)
				return nil, false
			}
			s2.joined, then = js[1], s2
		}
	}
	parsed = e.numberRows(t, st, parsed)
	e.fkAfter = nil
	if e.foreignKeyHalt(t, st, parsed) {
		return nil, false
	}
	s, ok := e.classify(parsed, t)
	if !ok {
		reason := unmodelled(st.SQL, false)
		if reason == "" {
			reason = about("not modelled", st.SQL)
		}
		e.halt(reason, "statement kind not modelled: %s", st.SQL)
		return nil, false
	}
	s.joined, s.then = joined, then
	return s, true
}

// takeSnapshot places t's transaction-level snapshot at st, where the
// rules take it there (Rules.SnapshotAt) or st narrows when it was taken.
func (e *Engine) takeSnapshot(t *Txn, st *Stmt, s *stmtInfo) {
	switch {
	case t.Snapshot >= 0 && !t.pinned && s.kind == KindSelect:
		// The earlier reads may never have reached the storage engine.
		t.SnapshotUntil, t.pinned = st.Start, readRows(st, s)
	case t.Snapshot >= 0 && !t.pinned && len(s.subs) > 0 && s.kind <= KindSelectUpdate && e.rules.Source[s.kind] == SnapTxn:
		// Nor may this locking read's subqueries have been the first to
		// reach it before it waited: the view may be as young as its end.
		t.SnapshotUntil = st.End
	case t.Snapshot >= 0:
	case e.rules.SnapshotAt == FirstStatement || e.rules.SnapshotAt == AtBegin:
		t.Snapshot, t.SnapshotUntil, t.pinned = st.Start, st.Start, true
	case s.kind == KindSelect:
		// InnoDB creates the read view at the first consistent read that
		// reaches the storage engine; a SELECT the optimizer answers
		// without reading (an impossible WHERE) creates none. Until a
		// SELECT has certainly read rows, the view may be younger.
		t.Snapshot, t.SnapshotUntil, t.pinned = st.Start, st.Start, readRows(st, s)
	case len(s.subs) > 0 && s.kind <= KindSelectUpdate && e.rules.Source[s.kind] == SnapTxn:
		// InnoDB: the subqueries of a locking read are consistent reads,
		// and the first one creates the read view, at some point of the
		// statement's run (before or after it waited).
		t.Snapshot, t.SnapshotUntil = st.Start, st.End
	}
}

// noteWaitedOn records the tables whose row locks t holds open after st:
// a locking statement that waited, or a locking read over a join (or one
// the model reads whole), which locks rows of every table in its FROM
// that it does not record row by row (PostgreSQL 15 docs, SELECT, The
// Locking Clause: without a table list, "all tables used in the
// statement" are locked): like a wait, it leaves which rows of those
// tables it holds open.
func (e *Engine) noteWaitedOn(t *Txn, st *Stmt, s *stmtInfo) {
	unrecorded := s.kind == KindSelectShare || s.kind == KindSelectUpdate
	unrecorded = unrecorded && !(s.single && s.table != "")
	if st.Err != nil {
		return
	}
	var names []string
	if s.joined != nil && e.rules.Joins.Locked {
		// The joined rows it read stay locked (Rules.Joins).
		names = append(names, s.joined.tables...)
	}
	if (st.Blocked() || unrecorded) && s.kind.Locking() {
		names = append(append(names, s.table), s.reads...)
	}
	for _, name := range names {
		if t.waitedOn == nil {
			t.waitedOn = map[string]bool{}
		}
		t.waitedOn[name] = true
	}
}

// afterRun judges what follows st's run, whose deviation was dev: the
// foreign-key checks made at its end, and the end of an autocommit
// statement's transaction. A dirty read while another statement waited
// is not judged.
func (e *Engine) afterRun(t *Txn, st *Stmt, s *stmtInfo, dev *Deviation) *Deviation {
	if dev != nil && dev.Verdict != verdict.Allowed && len(st.Waiting) > 0 && e.readsDirty(s) {
		// A statement waiting for a lock may already have changed rows
		// it reached before the wait; a dirty read sees those changes
		// like any other uncommitted one. Which rows they are is not
		// documented, so the read is not judged.
		e.halted, e.haltReason = "", ""
		e.halt("not modelled: a dirty read while another statement waits", "connection %d read uncommitted rows while connection %v waited: which rows the waiting statement changed before its wait is not modelled: %s", st.Conn, st.Waiting, st.SQL)
		return nil
	}
	if dev == nil && e.halted == "" {
		dev = e.restrictCheck(t, st)
	}
	if dev == nil && e.halted == "" && len(e.fkAfter) > 0 {
		dev = e.innodbAfter(t, st)
	}
	if dev != nil && s.joined != nil {
		dev.Rule.Source += "; " + e.rules.Joins.Source
	}
	if dev != nil && s.merge != nil {
		dev.Rule.Source += "; " + e.rules.Merge.Source
	}
	if dev != nil && e.savepointUndone {
		// What ROLLBACK TO SAVEPOINT left behind decided it too.
		if src := e.rules.SavepointSource; src != "" {
			dev.Rule.Source += "; " + src
		}
	}
	if !t.Explicit {
		e.end(t, st.End, true)
	}
	return dev
}

// Final compares the final state with the model's, once every statement has
// been judged; got is the actual final state.
func (e *Engine) Final(ctx context.Context, got target.State) *Deviation {
	if e.halted != "" {
		return nil
	}
	for _, name := range e.h.tables {
		var want []target.Row
		for _, r := range e.h.rows[name] {
			if v := visible(committed(r, never)); v != nil {
				want = append(want, v.Values)
			}
		}
		act := got[name]
		if !sameBag(want, act) {
			d := &Deviation{Kind: "incorrect-final-state", Verdict: verdict.Bug, Rule: e.rules.StatementView(), Table: name,
				Want: want, Got: act, StmtKind: "FINAL",
				Text: "the final state of " + name + " is not the one the statements' documented views produce"}
			if e.unsure {
				d.Verdict = Suspect
			}
			return d
		}
	}
	return nil
}

// Suspect is the verdict of an outcome the model cannot decide.
const Suspect = verdict.Suspect

// bag is a multiset of rows.
type bag map[string]int

func bagOf(rows []target.Row) bag {
	b := bag{}
	for _, r := range rows {
		b[rowKey(r)]++
	}
	return b
}

// take removes one r; false when the bag holds none.
func (b bag) take(r target.Row) bool {
	k := rowKey(r)
	if b[k] == 0 {
		return false
	}
	b[k]--
	return true
}

// sameBag compares two row multisets.
func sameBag(a, b []target.Row) bool {
	if len(a) != len(b) {
		return false
	}
	have := bagOf(a)
	for _, r := range b {
		if !have.take(r) {
			return false
		}
	}
	return true
}

func rowKey(r target.Row) string {
	var b strings.Builder
	for _, v := range r {
		if v.Null {
			b.WriteString("\x00N")
		} else {
			b.WriteString("\x00S" + v.S)
		}
	}
	return b.String()
}

// readRows reports whether a SELECT certainly read table rows: it returned
// a row and computes no aggregate (an aggregate returns a row over nothing).
func readRows(st *Stmt, s *stmtInfo) bool {
	if st.Err != nil || len(st.Rows) == 0 {
		return false
	}
	agg := false
	sqlast.Walk(s.ast, func(n any) bool {
		if f, ok := n.(*sqlast.Func); ok && aggregates[strings.ToUpper(f.Name)] {
			agg = true
		}
		return true
	})
	return !agg
}

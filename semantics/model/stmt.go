package model

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// stmtInfo is what the model reads from a statement's AST.
type stmtInfo struct {
	kind  Kind
	ast   sqlast.Stmt
	table string   // the written table; for a SELECT, its only table ("" when several)
	reads []string // the tables a SELECT reads (at its top level when subs is set)
	// subs are the tables read in subqueries when they read another view
	// than the statement's own tables (every table a write reads); the
	// statement's AST names their evaluator tables.
	subs  []string
	where sqlast.Expr
	// single: a SELECT over one table whose result is one output row per
	// matching row (no DISTINCT, aggregate, LIMIT or set operation), so it
	// can be checked row by row; limited: one that would be but for its
	// LIMIT.
	single, limited bool
	// wait is a locking SELECT's NOWAIT or SKIP LOCKED.
	wait sqlast.WaitPolicy
	// lock is the row lock the statement must take on the rows it acts
	// on, at its weakest where the DBMS decides it row by row (an
	// UPDATE's FOR NO KEY UPDATE or FOR UPDATE in PostgreSQL): the waits
	// it must make are those that lock conflicts with.
	lock strength
	// joined, when set, is the write across tables the statement is the
	// single-table form of (singleTable); then, the part of it that writes
	// a second table (joinedParts).
	joined *joinedWrite
	then   *stmtInfo
	// merge, when set, is the MERGE the statement is (merge.go).
	merge *mergeInfo
}

var aggregates = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true, "TOTAL": true, "GROUP_CONCAT": true, "STRING_AGG": true}

func tablesIn(n any) []string {
	var out []string
	for _, t := range tableRefs(n) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// tableRefs lists every table reference, repeats included.
func tableRefs(n any) []string {
	var out []string
	sqlast.Walk(n, func(n any) bool {
		if t, ok := n.(*sqlast.Table); ok {
			out = append(out, t.Name)
		}
		return true
	})
	return out
}

// outerTables returns the table nodes a query reads at its top level (its
// FROM items and joins, on both sides of a set operation), as opposed to
// the tables its subqueries and derived tables read.
func outerTables(q sqlast.Query) map[*sqlast.Table]bool {
	out := map[*sqlast.Table]bool{}
	var from func(tr sqlast.TableRef)
	from = func(tr sqlast.TableRef) {
		switch tr := tr.(type) {
		case *sqlast.Table:
			out[tr] = true
		case *sqlast.Join:
			from(tr.Left)
			from(tr.Right)
		}
	}
	var query func(q sqlast.Query)
	query = func(q sqlast.Query) {
		switch q := q.(type) {
		case *sqlast.Select:
			for _, tr := range q.From {
				from(tr)
			}
		case *sqlast.SetOp:
			query(q.Left)
			query(q.Right)
		}
	}
	query(q)
	return out
}

// splitSubqueries gives the tables st reads inside subqueries (all of a
// write's) tables of their own in the evaluator, so that they can hold the
// view the statement's subqueries read while its own table holds another.
func (e *Engine) splitSubqueries(st sqlast.Stmt, outer map[*sqlast.Table]bool) (subs []string) {
	sqlast.Walk(st, func(n any) bool {
		tb, ok := n.(*sqlast.Table)
		if !ok || outer[tb] {
			return true
		}
		if !slices.Contains(subs, tb.Name) {
			subs = append(subs, tb.Name)
		}
		if tb.Alias == "" {
			tb.Alias = tb.Name
		}
		tb.Name = subPrefix + tb.Name
		return true
	})
	return subs
}

func (e *Engine) classify(st sqlast.Stmt, t *Txn) (*stmtInfo, bool) {
	s := &stmtInfo{ast: st}
	known := func(names []string) bool {
		for _, n := range names {
			if e.schema[n] == nil {
				return false
			}
		}
		return true
	}
	switch st := st.(type) {
	case *sqlast.SelectStmt:
		s.wait = st.Wait
		s.lock = lockOf(st.Lock)
		switch st.Lock {
		case sqlast.LockShare, sqlast.LockKeyShare:
			s.kind = KindSelectShare
		case sqlast.LockUpdate, sqlast.LockNoKeyUpdate:
			s.kind = KindSelectUpdate
		default:
			s.kind = KindSelect
			if e.rules.LockingSelectInTxn && t.Explicit {
				s.kind, s.lock = KindSelectShare, lockShare
			}
		}
		if (st.Lock == sqlast.LockKeyShare || st.Lock == sqlast.LockNoKeyUpdate) && !e.rules.KeyLocks {
			// The strength is PostgreSQL's; a DBMS that reads it
			// otherwise (CockroachDB) does not document it here.
			return s, false
		}
		if s.kind != KindSelect && (e.rules.Source[s.kind] != e.rules.Target[s.kind] || e.rules.SubquerySnapshot != nil || st.Wait == sqlast.WaitSkipLocked) {
			// A locking read's subqueries are plain reads (nor do they
			// skip the rows SKIP LOCKED leaves out of its own tables).
			outer := outerTables(st.Query)
			s.subs = e.splitSubqueries(st, outer)
			for tb := range outer {
				if !slices.Contains(s.reads, tb.Name) {
					s.reads = append(s.reads, tb.Name)
				}
			}
			slices.Sort(s.reads)
		} else {
			s.reads = tablesIn(st)
		}
		if sel, ok := st.Query.(*sqlast.Select); ok && len(sel.From) == 1 {
			if tb, ok := sel.From[0].(*sqlast.Table); ok {
				s.table = tb.Name
				s.where = sel.Where
				// A subquery over the same table would read the evaluator's
				// copy, not the candidates: such a SELECT is checked whole.
				s.single = !sel.Distinct && !slices.Contains(tablesIn(sel.Where), s.table)
				for _, it := range sel.Items {
					sqlast.Walk(it.Expr, func(n any) bool {
						switch n := n.(type) {
						case *sqlast.Func:
							if aggregates[strings.ToUpper(n.Name)] {
								s.single = false
							}
						case *sqlast.ScalarSubquery:
							if slices.Contains(tablesIn(n), s.table) {
								s.single = false
							}
							return false
						case *sqlast.Exists, *sqlast.In:
							return false
						}
						return true
					})
				}
				s.single, s.limited = s.single && st.Limit == nil, s.single && st.Limit != nil
			}
		}
		return s, known(s.reads) && known(s.subs)
	case *sqlast.Update:
		if st.MultiTable() {
			return s, false // a write across tables (singleTable)
		}
		s.kind, s.table, s.where = KindUpdate, st.Table, st.Where
		s.lock = e.writeLockAtLeast()
	case *sqlast.Delete:
		if st.MultiTable() {
			return s, false
		}
		s.kind, s.table, s.where = KindDelete, st.Table, st.Where
		s.lock = lockUpdate
	case *sqlast.Insert:
		s.kind, s.table = KindInsert, st.Table
		s.lock = e.writeLockAtLeast()
		switch {
		case st.Replace || st.OnConflict != nil:
			s.kind = KindUpsert
		case st.Select != nil:
			s.kind = KindInsertSelect
		}
	default:
		return s, false
	}
	s.subs = e.splitSubqueries(st, nil)
	return s, known(append([]string{s.table}, s.subs...))
}

// option is one version a statement may see of a row.
type option struct {
	v *Version // nil: the row is absent
	// gate is, under Recheck, the snapshot version that must match as well.
	gate *Version
	// vary, when set, is the only variation that permits this option.
	vary *Variation
}

// rowOptions lists the versions of r the statement may see, the one the
// plain rules prefer first.
func (e *Engine) rowOptions(r *Row, t *Txn, kind Kind, rd Read, st *Stmt) []option {
	o := own(r, t)
	if e.subquery && e.hideFrom > 0 {
		o = ownBefore(r, t, e.hideFrom)
	}
	if o != nil && !t.abortedBefore(st.End) {
		opts := []option{{v: visible(o)}}
		if e.rules.NoOpUpdate != nil && (rd == SnapTxn || rd == SnapStatement) && allNoOp(r, t) {
			snap := st.Start
			if rd == SnapTxn && t.Snapshot >= 0 {
				snap = t.Snapshot
			}
			if alt := visible(committed(r, snap)); alt != opts[0].v {
				opts = append(opts, option{v: alt, vary: e.rules.NoOpUpdate})
			}
		}
		return opts
	}
	opts := e.readOptions(r, t, kind, rd, st)
	if sv := e.rules.SubquerySnapshot; sv != nil && e.subquery && kind == KindSelect && rd == Current && t.Snapshot >= 0 {
		if snap := visible(committed(r, t.Snapshot)); !slices.ContainsFunc(opts, func(o option) bool { return o.v == snap }) {
			opts = append(opts, option{v: snap, vary: sv})
		}
	}
	if sv := e.rules.SavepointReadView; sv != nil && rd == SnapTxn && t.viewDropAt > 0 && t.viewDropAt <= st.Start {
		// The read view the rollback dropped: the next read took a new
		// one, at some point from the rollback to this statement.
		add := func(v *Version) {
			if v = visible(v); !slices.ContainsFunc(opts, func(o option) bool { return o.v == v }) {
				opts = append(opts, option{v: v, vary: sv})
			}
		}
		add(committed(r, st.Start))
		for _, v := range r.Versions {
			if v.Txn.CommitAt >= t.viewDropAt && v.Txn.CommitAt < st.Start {
				add(v)
			}
		}
	}
	if rv := e.rules.ReverseScan; rv != nil && e.reverse && kind <= KindSelectUpdate && (rd == SnapStatement || rd == SnapTxn) {
		if last := visible(committed(r, st.Start)); !slices.ContainsFunc(opts, func(o option) bool { return o.v == last }) {
			opts = append(opts, option{v: last, vary: rv})
		}
	}
	return opts
}

// readOptions are rowOptions for a row the transaction has not written.
func (e *Engine) readOptions(r *Row, t *Txn, kind Kind, rd Read, st *Stmt) []option {
	switch rd {
	case SnapStatement:
		opts := []option{{v: visible(committed(r, st.Start))}}
		if e.rules.LazyReadView && st.Blocked() {
			// The read view is created when the first consistent read
			// runs, which may follow the statement's lock wait.
			for _, v := range r.Versions {
				if v.Txn.CommitAt >= st.Start && v.Txn.CommitAt < st.End && !slices.ContainsFunc(opts, func(o option) bool { return o.v == visible(v) }) {
					opts = append(opts, option{v: visible(v)})
				}
			}
		}
		return opts
	case SnapTxn:
		snap, until := t.Snapshot, t.SnapshotUntil
		if snap < 0 {
			snap, until = st.Start, st.Start
		}
		opts := []option{{v: visible(committed(r, snap))}}
		// A snapshot taken by a statement that waited: any point of its
		// wait.
		for _, v := range r.Versions {
			if v.Txn.CommitAt >= snap && v.Txn.CommitAt < until && !slices.ContainsFunc(opts, func(o option) bool { return o.v == visible(v) }) {
				opts = append(opts, option{v: visible(v)})
			}
		}
		return opts
	case Recheck:
		snap := visible(committed(r, st.Start))
		if snap == nil {
			return []option{{}}
		}
		cur := committed(r, st.End)
		if cur == snap {
			return []option{{v: snap}}
		}
		return []option{{v: visible(cur), gate: snap}}
	case Current, Dirty:
		pick := func(at int) *Version {
			if rd == Dirty {
				return latest(r, at)
			}
			return committed(r, at)
		}
		opts := []option{{v: visible(pick(st.End))}}
		if st.Blocked() && rd == Current {
			if l := latest(r, st.Start); l != nil && l.Txn != t && l.Txn.activeAt(st.Start) && !l.Txn.noLocks {
				// Locked when the statement started: it waits for the
				// holder and reads what the holder left.
				started := committed(r, st.Start)
				old := visible(started)
				if h := l.Txn; h.CommitAt < st.End {
					// Another transaction may have written the row again
					// after the holder let go and before the statement
					// went on: the statement may have read the row as the
					// holder left it and passed it (a version committed
					// while it waited may or may not be seen: no gap locks
					// at READ COMMITTED; measured on MariaDB 10.11, a
					// DELETE that waited on a row one transaction deleted
					// left it as another re-inserted it behind its scan).
					if left := visible(committed(r, h.CommitAt+1)); left != opts[0].v {
						opts = append(opts, option{v: left})
					}
				}
				if kind == KindUpdate && e.rules.SemiConsistent != nil && !e.noSemiConsistent {
					if old != opts[0].v {
						vary := e.rules.SemiConsistent
						if old == nil && e.rules.UncommittedInsert != nil {
							// No committed version to judge by: the
							// holder inserted the row (or moved it to a
							// new key).
							vary = e.rules.UncommittedInsert
						}
						opts = append(opts, option{v: old, vary: vary})
					}
				}
				if v := e.rules.UncommittedChange; v != nil && l.Prev != nil {
					// The holder changed the row: the statement read its
					// committed version before it waited.
					if old != opts[0].v {
						opts = append(opts, option{v: old, vary: v})
					}
				}
				if v := e.rules.UncommittedInsert; v != nil && e.rules.UncommittedInsertAnyWrite && v.Verdict == verdict.Allowed &&
					l.Prev == nil && started == nil && opts[0].v != nil {
					// The holder inserted the row: a statement that waited
					// for another row may not have seen it either.
					opts = append(opts, option{})
				}
				// The row's index record moved during the wait, by the
				// holder or by another writer that took the lock first
				// when the holder let go.
				if e.indexMoved(l, opts[0].v) || e.indexMoved(started, opts[0].v) {
					opts = e.mayMissMoved(opts)
				}
				return opts
			}
		}
		add := func(v *Version) {
			v = visible(v)
			for _, o := range opts {
				if o.v == v {
					return
				}
			}
			opts = append(opts, option{v: v})
		}
		if st.Blocked() {
			start := pick(st.Start)
			add(start)
			moved := false
			for _, v := range r.Versions {
				if rd == Current && v.Txn.CommitAt >= st.Start && v.Txn.CommitAt < st.End {
					add(v)
					moved = moved || e.indexMoved(start, v)
				}
			}
			if moved {
				opts = e.mayMissMoved(opts)
			}
		}
		return opts
	}
	return []option{{}}
}

// mayMissMoved adds to a waiting locking statement's options for a row
// whose secondary-index record moved during the wait that it misses the
// row (Rules.IndexMoveMayMiss), unless missing it is permitted already.
func (e *Engine) mayMissMoved(opts []option) []option {
	mv := e.rules.IndexMoveMayMiss
	if mv == nil || slices.ContainsFunc(opts, func(o option) bool { return o.v == nil && o.vary == nil && o.gate == nil }) {
		return opts
	}
	return append(opts, option{vary: mv})
}

func allNoOp(r *Row, t *Txn) bool {
	for _, v := range r.Versions {
		if v.Txn == t && !v.NoOp {
			return false
		}
	}
	return true
}

// tableView is every row's options for one table.
type tableView struct {
	rows []*Row
	opts [][]option
}

func (e *Engine) view(table string, t *Txn, kind Kind, rd Read, st *Stmt) *tableView {
	tv := &tableView{}
	for _, r := range e.h.rows[table] {
		tv.rows = append(tv.rows, r)
		tv.opts = append(tv.opts, e.rowOptions(r, t, kind, rd, st))
	}
	return tv
}

// backwards reports whether a statement may scan an index backwards: an
// ORDER BY … DESC or a MAX anywhere in it.
func backwards(st sqlast.Stmt) bool {
	found := false
	sqlast.Walk(st, func(n any) bool {
		switch n := n.(type) {
		case *sqlast.SelectStmt:
			for _, o := range n.OrderBy {
				found = found || o.Desc
			}
		case *sqlast.Func:
			found = found || strings.EqualFold(n.Name, "MAX")
		}
		return !found
	})
	return found
}

// exact reports whether every row has one option and nothing to re-check.
func (tv *tableView) exact() bool {
	for _, o := range tv.opts {
		if len(o) != 1 || o[0].gate != nil {
			return false
		}
	}
	return true
}

// plainExact is exact leaving out the versions only a variation permits.
func (tv *tableView) plainExact() bool {
	for _, os := range tv.opts {
		n := 0
		for _, o := range os {
			if o.gate != nil {
				return false
			}
			if o.vary == nil {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}

// plainViews lists the views the plain rules permit (each row's options
// without the variations' and without re-check gates), the strict one
// first; nil when a row has a gate or there are more than maxChoice.
func (tv *tableView) plainViews() [][]*Version {
	views := [][]*Version{make([]*Version, 0, len(tv.opts))}
	for _, os := range tv.opts {
		var vs []*Version
		for _, o := range os {
			if o.gate != nil {
				return nil
			}
			if o.vary == nil {
				vs = append(vs, o.v)
			}
		}
		if len(vs) == 0 {
			vs = []*Version{os[0].v}
		}
		var next [][]*Version
		for _, v := range vs {
			for _, w := range views {
				next = append(next, append(slices.Clone(w), v))
			}
		}
		if len(next) > maxChoice {
			return nil
		}
		views = next
	}
	return views
}

// strict is the view the plain rules prefer.
func (tv *tableView) strict() []*Version {
	out := make([]*Version, len(tv.opts))
	for i, o := range tv.opts {
		out[i] = o[0].v
	}
	return out
}

// last is the view with every row's last option (no variations): the
// other end of a snapshot window or of a wait.
func (tv *tableView) last() []*Version {
	out := make([]*Version, len(tv.opts))
	for i, o := range tv.opts {
		out[i] = o[0].v
		for _, x := range o[1:] {
			if x.vary == nil {
				out[i] = x.v
			}
		}
	}
	return out
}

func allExact(views map[string]*tableView) bool {
	for _, tv := range views {
		if !tv.exact() {
			return false
		}
	}
	return true
}

// varied is the view with every variation taken, or nil when none applies.
func (tv *tableView) varied() ([]*Version, *Variation) {
	var vary *Variation
	out := make([]*Version, len(tv.opts))
	for i, o := range tv.opts {
		out[i] = o[0].v
		for _, x := range o[1:] {
			if x.vary != nil {
				out[i], vary = x.v, x.vary
			}
		}
	}
	if vary == nil {
		return nil, nil
	}
	return out, vary
}

// candidates are all versions named by the options, for the candidate table.
func (tv *tableView) candidates(extra ...*Version) []*Version {
	seen := map[*Version]bool{}
	var out []*Version
	add := func(v *Version) {
		if v != nil && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, os := range tv.opts {
		for _, o := range os {
			add(o.v)
			add(o.gate)
		}
	}
	for _, v := range extra {
		add(v)
	}
	return out
}

func (e *Engine) run(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo) (*Deviation, error) {
	if s.kind <= KindSelectUpdate {
		return e.runSelect(ctx, t, st, s)
	}
	if s.merge != nil {
		return e.runMerge(ctx, t, st, s)
	}
	return e.runWrite(ctx, t, st, s)
}

// exec runs a statement on the evaluator; a statement the DBMS rejects
// there comes back as res == nil with its error text.
func (e *Engine) exec(ctx context.Context, sql string) (*target.Result, string, error) {
	res, te, err := e.execClass(ctx, sql)
	if te != nil {
		return nil, te.Error(), err
	}
	return res, "", err
}

// execClass is exec with the evaluator's error as a target error (nil
// with a result).
func (e *Engine) execClass(ctx context.Context, sql string) (*target.Result, *target.Error, error) {
	res, err := e.ev.Exec(ctx, sql)
	if err != nil {
		if te := target.AsError(err); te != nil && te.Class != target.ClassConnection {
			return nil, te, nil
		}
		return nil, nil, fmt.Errorf("model evaluator: %w", err)
	}
	if res.Truncated > 0 {
		// The evaluator's copy holds more rows than txlab keeps of a
		// result: what it returned is part of the answer.
		e.halt(ReasonTruncated, "the model's evaluator returned more rows than txlab keeps (%d dropped)", res.Truncated)
	}
	return res, nil, nil
}

// stripVID removes the version column from a result (SELECT * over the
// evaluator's tables).
func stripVID(res *target.Result) []target.Row {
	var keep []int
	for i, c := range res.Columns {
		if !strings.EqualFold(c, vidColumn) {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(res.Columns) {
		return res.Rows
	}
	out := make([]target.Row, len(res.Rows))
	for i, r := range res.Rows {
		row := make(target.Row, 0, len(keep))
		for _, k := range keep {
			row = append(row, r[k])
		}
		out[i] = row
	}
	return out
}

// runSelect models a SELECT, plain or locking: the rows its documented
// views give, which it checks against the rows the DBMS returned.
func (e *Engine) runSelect(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo) (*Deviation, error) {
	e.reverse = e.rules.ReverseScan != nil && backwards(s.ast)
	defer func() { e.reverse = false }()
	rd := e.rules.Target[s.kind]
	views := map[string]*tableView{}
	for _, name := range s.reads {
		views[name] = e.view(name, t, s.kind, rd, st)
	}
	others := true
	for name, tv := range views {
		if name != s.table && !tv.exact() {
			others = false
		}
	}
	subViews := map[string]*tableView{}
	e.subquery = true
	defer func() { e.subquery = false }()
	for _, name := range s.subs {
		sv := e.view(name, t, KindSelect, e.rules.Source[s.kind], st)
		subViews[name] = sv
		if !sv.exact() {
			others = false
		}
		if err := e.load(ctx, subPrefix+name, sv.strict()); err != nil {
			return nil, err
		}
	}
	if !e.skipLockedDecided(t, st, s, views[s.table], others) {
		return nil, nil
	}
	if s.single && s.table != "" && others {
		return e.selectByRow(ctx, t, st, s, views)
	}
	for _, name := range s.reads {
		if err := e.load(ctx, name, views[name].strict()); err != nil {
			return nil, err
		}
	}
	sql, ok := e.render(s.ast)
	if !ok {
		e.halt("cannot render: "+s.kind.String(), "cannot render for the model: %s", st.SQL)
		return nil, nil
	}
	res, msg, err := e.exec(ctx, sql)
	if err != nil || res == nil {
		e.halt("evaluation fails: "+s.kind.String(), "the model cannot run %s: %s", st.SQL, msg)
		return nil, err
	}
	want := stripVID(res)
	if sameBag(want, st.Rows) {
		return nil, nil
	}
	return e.otherViews(ctx, st, s, sql, views, subViews, want)
}

// columnsRead are the columns st names, nil where it reads every column
// (a *).
func columnsRead(st sqlast.Stmt) []string {
	var out []string
	star := false
	sqlast.Walk(st, func(n any) bool {
		switch n := n.(type) {
		case *sqlast.ColumnRef:
			if !slices.Contains(out, n.Column) {
				out = append(out, n.Column)
			}
		case *sqlast.Select:
			star = star || slices.ContainsFunc(n.Items, func(it sqlast.SelectItem) bool { return it.Star })
		}
		return true
	})
	if star {
		return nil
	}
	return out
}

// skipLockedDecided reports whether the model decides which rows a SKIP
// LOCKED read skipped (any other read: true); false, having stopped the
// engine, where it does not. tv is the view of the read's table.
func (e *Engine) skipLockedDecided(t *Txn, st *Stmt, s *stmtInfo, tv *tableView, others bool) bool {
	if s.wait != sqlast.WaitSkipLocked || !s.kind.Locking() || !e.rules.RowLocks {
		return true
	}
	// A shared read meets another transaction's lock where no secondary
	// index covers it: it reads the clustered record (ShareLocksMayMiss).
	mayMiss := !s.kind.Exclusive() && e.rules.ShareLocksMayMiss && (s.table == "" || e.coveredBySecondary(s.table, columnsRead(s.ast)))
	if !s.single && !(s.limited && e.rules.SkipLockedLimit) || s.table == "" || !others || e.rules.SkipLockedOpen || mayMiss {
		// Which rows it skipped the model cannot tell there: a join,
		// a read whose shared lock may miss, TiDB's (not documented).
		// PostgreSQL's ORDER BY … LIMIT locks rows as it returns them
		// and stops once it has enough (15 docs, SELECT, The Locking
		// Clause: "locking stops once enough rows have been returned
		// to satisfy the limit"), so the result is the query's over
		// the rows it does not skip.
		why := "not modelled: SKIP LOCKED"
		switch {
		case s.table == "":
			why += " over a join"
		case !others:
			why += " beside open views"
		case e.rules.SkipLockedOpen:
		case mayMiss:
			why += " of a shared lock through a secondary index"
		case s.limited:
			why += " with LIMIT"
		case !s.single:
			why += " of rows not read one by one"
		}
		e.halt(why, "which rows %s skips is not modelled", st.SQL)
		return false
	}
	if !e.skipLocked(t, st, s, tv) {
		e.halt("open rows: SKIP LOCKED", "whether %s must skip a row whose lock is not documented (an UPDATE that changed nothing, a row a waiting write re-checked and left) is not decided", st.SQL)
		return false
	}
	return true
}

// otherViews judges a SELECT whose rows are not want, the result of sql
// on its plain views: the rows may be those of another view the rules
// leave open, of a variation's, or of an ORDER BY … LIMIT's ties; else
// the SELECT deviates.
func (e *Engine) otherViews(ctx context.Context, st *Stmt, s *stmtInfo, sql string, views, subViews map[string]*tableView, want []target.Row) (*Deviation, error) {
	sel := s.ast.(*sqlast.SelectStmt)
	exact := true
	for _, sv := range subViews {
		exact = exact && sv.plainExact()
	}
	if !exact || !allExact(views) {
		if ok, err := e.lastViewsGive(ctx, st, s, sql, views, subViews); ok || err != nil {
			return nil, err
		}
	}
	// The versions a variation lets the subqueries read, with the plain
	// view of the statement's own tables.
	if d, err := e.trySubqueryVariation(ctx, st, s, sql, views, subViews, want); d != nil || err != nil {
		return d, err
	}
	for _, name := range s.reads {
		exact = exact && views[name].exact()
	}
	if d, err := e.variedViews(ctx, st, s, sql, views, want); d != nil || err != nil {
		return d, err
	}
	if exact && sel.Limit != nil {
		if d, decided, err := e.limitResult(ctx, st, s, sel, views, want); decided || err != nil {
			return d, err
		}
	}
	if !exact || sel.Limit != nil {
		e.halt("open rows: "+s.kind.String(), "cannot decide %s: its result depends on rows the model leaves open", st.SQL)
		d := e.resultDev(st, s, Suspect, "", want, nil)
		return d, nil
	}
	return e.wrongResult(st, s, want, nil), nil
}

// lastViewsGive reports whether sql on the other end of every open choice
// (a snapshot taken late in a wait, a version committed while waiting not
// seen) returns the rows the SELECT returned.
func (e *Engine) lastViewsGive(ctx context.Context, st *Stmt, s *stmtInfo, sql string, views, subViews map[string]*tableView) (bool, error) {
	for _, name := range s.reads {
		if err := e.load(ctx, name, views[name].last()); err != nil {
			return false, err
		}
	}
	for name, sv := range subViews {
		if err := e.load(ctx, subPrefix+name, sv.last()); err != nil {
			return false, err
		}
	}
	res, _, err := e.exec(ctx, sql)
	if err != nil {
		return false, err
	}
	return res != nil && sameBag(stripVID(res), st.Rows), nil
}

// variedViews loads the versions a variation lets the statement's own
// tables read and, where sql then returns the rows the SELECT returned,
// returns the variation's deviation.
func (e *Engine) variedViews(ctx context.Context, st *Stmt, s *stmtInfo, sql string, views map[string]*tableView, want []target.Row) (*Deviation, error) {
	var varied bool
	for _, name := range s.reads {
		if vs, vary := views[name].varied(); vary != nil {
			varied = true
			if err := e.load(ctx, name, vs); err != nil {
				return nil, err
			}
		}
	}
	if !varied {
		return nil, nil
	}
	res, _, err := e.exec(ctx, sql)
	if err != nil {
		return nil, err
	}
	if res != nil && sameBag(stripVID(res), st.Rows) {
		for _, name := range s.reads {
			if _, vary := views[name].varied(); vary != nil {
				return e.resultDev(st, s, vary.Verdict, vary.Rule.Name, want, nil), nil
			}
		}
	}
	return nil, nil
}

// limitResult decides a SELECT with ORDER BY … LIMIT on its exact views:
// its rows are permitted where the ordering's ties let the DBMS return
// them (limitPermits), else it deviates; decided is false where that is
// not decided.
func (e *Engine) limitResult(ctx context.Context, st *Stmt, s *stmtInfo, sel *sqlast.SelectStmt, views map[string]*tableView, want []target.Row) (d *Deviation, decided bool, err error) {
	for _, name := range s.reads {
		if err := e.load(ctx, name, views[name].strict()); err != nil {
			return nil, true, err
		}
	}
	permitted, decided, err := e.limitPermits(ctx, sel, st.Rows)
	switch {
	case err != nil:
		return nil, true, err
	case decided && permitted:
		return nil, true, nil
	case decided:
		return e.resultDev(st, s, verdict.Bug, "", want, nil), true, nil
	}
	return nil, false, nil
}

// wrongResult is the deviation of a SELECT whose rows no documented view
// gives: a bug, or a suspect where they differ from the one view the model
// has (may nil) only as strings the collation holds equal. MIN, MAX,
// DISTINCT or GROUP BY over such strings may return any of them, and a
// stale version differing only in case would look the same, so the model
// decides neither.
func (e *Engine) wrongResult(st *Stmt, s *stmtInfo, want, may []target.Row) *Deviation {
	if may == nil && e.collationTies(want, st.Rows) {
		e.halt("open rows: collation", "%s returned strings that differ from its view's only in case or trailing spaces, which %s's default collation compares equal", st.SQL, e.rules.DBMS)
		return e.resultDev(st, s, Suspect, "", want, may)
	}
	return e.resultDev(st, s, verdict.Bug, "", want, may)
}

// collationTies reports whether rows got equal want up to case and
// trailing spaces, on a DBMS whose default collation compares strings so
// (MariaDB and MySQL: utf8mb4_general_ci / _0900_ai_ci and latin1_swedish_ci
// are case-insensitive PAD SPACE collations; TiDB's default, utf8mb4_bin,
// is binary).
func (e *Engine) collationTies(want, got []target.Row) bool {
	if !e.rules.FoldingCollation {
		return false
	}
	fold := func(rows []target.Row) []target.Row {
		out := make([]target.Row, len(rows))
		for i, r := range rows {
			out[i] = make(target.Row, len(r))
			for j, v := range r {
				v.S = strings.ToLower(strings.TrimRight(v.S, " "))
				out[i][j] = v
			}
		}
		return out
	}
	return sameBag(fold(want), fold(got))
}

// trySubqueryVariation re-runs a SELECT with the versions a variation
// lets its subqueries read (Rules.SubquerySnapshot) and the plain view of
// its own tables, and reports the variation's deviation when that gives
// the rows it returned.
func (e *Engine) trySubqueryVariation(ctx context.Context, st *Stmt, s *stmtInfo, sql string, views, subViews map[string]*tableView, want []target.Row) (*Deviation, error) {
	var vary *Variation
	for name, sv := range subViews {
		vs, v := sv.varied()
		if v == nil {
			vs = sv.strict()
		} else {
			vary = v
		}
		if err := e.load(ctx, subPrefix+name, vs); err != nil {
			return nil, err
		}
	}
	if vary == nil {
		return nil, nil
	}
	for _, name := range s.reads {
		if err := e.load(ctx, name, views[name].strict()); err != nil {
			return nil, err
		}
	}
	res, _, err := e.exec(ctx, sql)
	if err != nil {
		return nil, err
	}
	if res != nil && sameBag(stripVID(res), st.Rows) {
		return e.resultDev(st, s, vary.Verdict, vary.Rule.Name, want, nil), nil
	}
	for name, sv := range subViews {
		if err := e.load(ctx, subPrefix+name, sv.strict()); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (e *Engine) resultDev(st *Stmt, s *stmtInfo, v verdict.Verdict, rule string, want, may []target.Row) *Deviation {
	d := &Deviation{Kind: "incorrect-result", Verdict: v, Rule: e.rules.StatementView(), Stmt: st, StmtKind: s.kind.String(),
		Want: want, May: may, Got: st.Rows}
	if rule != "" {
		d.Rule = e.ruleNamed(rule)
	}
	d.Text = fmt.Sprintf("connection %d's %s returned rows its documented view does not allow", st.Conn, s.kind)
	e.halt(deviated, "stopped at the first deviation")
	return d
}

func (e *Engine) ruleNamed(name string) verdict.Rule {
	r := e.rules
	for _, v := range []*Variation{r.NoOpUpdate, r.UncommittedInsert, r.UncommittedChange, r.SemiConsistent, r.ConflictAfterWait, r.IndexMoveMayMiss, r.AutocommitOptimistic, r.ReverseScan, r.SubquerySnapshot, r.SavepointReadView, r.ScanLockMayStay} {
		if v != nil && v.Rule.Name == name {
			return v.Rule
		}
	}
	return e.rules.StatementView()
}

// selectByRow checks a single-table SELECT row by row: every row's options
// are evaluated at once on the candidate table, tagged with their version.
func (e *Engine) selectByRow(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo, views map[string]*tableView) (*Deviation, error) {
	for _, name := range s.reads {
		if name != s.table {
			if err := e.load(ctx, name, views[name].strict()); err != nil {
				return nil, err
			}
		}
	}
	tv := views[s.table]
	lockTests := e.lockTests(t, st, s, tv)
	matched, tuples, ok, err := e.evalCandidates(ctx, s, tv, lockTests)
	if err != nil || !ok {
		return nil, err
	}
	if d := e.mustBlock(st, s, tv, lockTests, matched); d != nil {
		if s.wait == sqlast.WaitNowait {
			// NOWAIT: the statement must fail at once instead.
			d.Kind = "missing-error"
			d.Text = strings.Replace(d.Text, "did not wait for", "succeeded, with NOWAIT, despite", 1) + "; it must fail at once"
		}
		return d, nil
	}
	choices := make([][]choice, len(tv.rows))
	for i, os := range tv.opts {
		for _, o := range os {
			c := choice{vary: o.vary}
			if o.v != nil && matched[o.v.ID] && (o.gate == nil || matched[o.gate.ID]) {
				c.key = rowKey(tuples[o.v.ID])
				c.row = tuples[o.v.ID]
			}
			choices[i] = append(choices[i], c)
		}
	}
	okStrict, _ := conforms(choices, st.Rows, false)
	if okStrict {
		e.lockRows(t, s, tv, matched)
		return nil, nil
	}
	want, may := wantMay(choices)
	if okVary, varies := conforms(choices, st.Rows, true); okVary && len(varies) > 0 {
		return e.resultDev(st, s, varies[0].Verdict, varies[0].Rule.Name, want, may), nil
	}
	return e.wrongResult(st, s, want, may), nil
}

// skipLocked leaves out of a SKIP LOCKED read's view the rows another
// transaction holds locked when it starts (PostgreSQL's SELECT, the
// locking clause; MySQL 8.0 manual 17.7.2.4, NOWAIT and SKIP LOCKED). It
// returns false when a row's lock is not known (an UPDATE that changed
// nothing, Rules.NoOpLockUnknown). While another connection's statement
// waits, the rows it has locked so far (a DELETE deletes the rows before
// the one it waits for) are not known, nor, once a locking statement of
// another transaction has waited on the table, the rows it locked and did
// not change (PostgreSQL locks a row's latest version before it re-checks
// the WHERE): every row may be skipped then.
func (e *Engine) skipLocked(t *Txn, st *Stmt, s *stmtInfo, tv *tableView) bool {
	unknown := len(st.Waiting) > 0
	for _, o := range e.txns {
		unknown = unknown || o != t && o.activeAt(st.Start) && o.waitedOn[s.table]
	}
	var rows []*Row
	var opts [][]option
	scanned := e.scannedBy(t, s.table, s.kind.Exclusive(), st.Start)
	for i, r := range tv.rows {
		held, _ := lockedBy(r, t, s.lock, st.Start, e.txns, false, false)
		if sure, _ := lockedBy(r, t, s.lock, st.Start, e.txns, e.rules.NoOpLockUnknown, true); (held == nil) != (sure == nil) {
			return false
		}
		if held == nil && !unknown && !(scanned && e.rules.ScanLocks) && maybeLockedBy(r, t, st.Start, e.txns) {
			// Whether it is locked is open, and nothing below makes
			// every row optional.
			return false
		}
		if held == nil {
			os := tv.opts[i]
			// Another transaction may hold it locked because one of its
			// statements scanned it (InnoDB), or a statement of another
			// connection waits now or waited on this table: it may be
			// skipped.
			absent := slices.ContainsFunc(os, func(o option) bool { return o.v == nil && o.vary == nil })
			switch {
			case absent:
			case unknown || scanned && e.rules.ScanLocks:
				os = append(slices.Clone(os), option{})
			case scanned && e.rules.ScanLockMayStay != nil:
				os = append(slices.Clone(os), option{vary: e.rules.ScanLockMayStay})
			}
			rows, opts = append(rows, r), append(opts, os)
		}
	}
	tv.rows, tv.opts = rows, opts
	return true
}

// scan notes the tables whose rows a locking statement of t may lock
// without matching them (Rules.ScanLocks): its own table, with its lock's
// strength, and the tables its subqueries read, shared.
func (e *Engine) scan(t *Txn, s *stmtInfo) {
	if r := e.rulesOf(t); !r.ScanLocks && r.ScanLockMayStay == nil || !s.kind.Locking() {
		return
	}
	if t.scanned == nil {
		t.scanned = map[string]bool{}
	}
	for _, name := range append(append([]string{s.table}, s.reads...), s.subs...) {
		if name != "" {
			t.scanned[name] = t.scanned[name] || s.kind.Exclusive() && (name == s.table || slices.Contains(s.reads, name))
		}
	}
}

// scannedBy reports whether a transaction other than t, active at at, may
// hold a lock on a row of table that a lock of the given strength
// conflicts with, because one of its statements scanned the row.
func (e *Engine) scannedBy(t *Txn, table string, exclusive bool, at int) bool {
	for _, o := range e.txns {
		if o == t || !o.activeAt(at) {
			continue
		}
		if x, ok := o.scanned[table]; ok && (exclusive || x) {
			return true
		}
	}
	return false
}

// lockRows records the row locks a locking SELECT took.
func (e *Engine) lockRows(t *Txn, s *stmtInfo, tv *tableView, matched map[int]bool) {
	if !s.kind.Locking() || !e.rules.RowLocks || (!s.kind.Exclusive() && e.rules.ShareLocksMayMiss) {
		return
	}
	if t.locks == nil {
		t.locks = map[*Row]strength{}
	}
	for i, os := range tv.opts {
		// Under Recheck a row whose snapshot version (the gate) fails the
		// WHERE is neither re-checked nor locked (executor/README,
		// EvalPlanQual), whatever its latest version holds.
		if v := os[0].v; v != nil && matched[v.ID] && len(os) == 1 && (os[0].gate == nil || matched[os[0].gate.ID]) {
			t.locks[tv.rows[i]] = max(t.locks[tv.rows[i]], s.lock)
		}
	}
}

// wantMay splits the documented choices (a variation's are left out: they
// are what the report explains, not what the view permits) into the rows
// the statement must return and those it may.
func wantMay(choices [][]choice) (want, may []target.Row) {
	for _, all := range choices {
		var cs []choice
		for _, c := range all {
			if c.vary == nil {
				cs = append(cs, c)
			}
		}
		if len(cs) == 1 {
			if cs[0].row != nil {
				want = append(want, cs[0].row)
			}
			continue
		}
		for _, c := range cs {
			if c.row != nil {
				may = append(may, c.row)
			}
		}
	}
	return want, may
}

// lockTest is a row another transaction holds a conflicting lock on, and
// the version of it whose match decides that the statement must wait.
type lockTest struct {
	row  *Row
	test *Version
	// vary: waiting is required only by this confirmed-bug variation (or
	// skipping is documented, when its verdict is allowed).
	vary *Variation
	// holder is the transaction that holds the row's lock.
	holder *Txn
}

// lockTests lists the rows the statement must wait for if they match.
func (e *Engine) lockTests(t *Txn, st *Stmt, s *stmtInfo, tv *tableView) []lockTest {
	if !e.rules.RowLocks || !s.kind.Locking() || st.Err != nil || (!s.kind.Exclusive() && e.rules.ShareLocksMayMiss) {
		return nil
	}
	if e.rules.AutocommitOptimistic != nil && !t.Explicit && s.kind <= KindSelectUpdate {
		return nil // an autocommit locking read waits for no lock
	}
	rd := e.rules.Target[s.kind]
	var out []lockTest
	for _, r := range tv.rows {
		holder, hv := lockedBy(r, t, s.lock, st.Start, e.txns, e.rules.NoOpLockUnknown, true)
		if holder == nil || slices.Contains(st.Waiting, holder.Conn) {
			continue
		}
		lt := lockTest{row: r, holder: holder}
		switch ov := own(r, t); {
		case ov != nil:
			// A row it changed that another transaction locks too (FOR
			// KEY SHARE beside its FOR NO KEY UPDATE): it acts on its
			// own version.
			lt.test = visible(ov)
		case rd == Recheck:
			lt.test = visible(committed(r, st.Start))
		case rd == SnapTxn:
			snap := t.Snapshot
			if snap < 0 {
				snap = st.Start
			}
			lt.test = visible(committed(r, snap))
		default:
			lt.test = visible(committed(r, st.Start))
			if lt.test == nil && hv != nil && hv.Prev == nil {
				// a row the holder inserted: no committed version to read
				lt.test = visible(hv)
				if s.kind == KindUpdate || e.rules.UncommittedInsertAnyWrite {
					lt.vary = e.rules.UncommittedInsert
				}
			}
		}
		if lt.test != nil {
			out = append(out, lt)
		}
	}
	return out
}

// mustBlock reports a statement that did not wait although a row it must
// lock was locked by another transaction.
func (e *Engine) mustBlock(st *Stmt, s *stmtInfo, tv *tableView, tests []lockTest, matched map[int]bool) *Deviation {
	if st.Blocked() || st.Err != nil {
		return nil
	}
	for _, lt := range tests {
		if !matched[lt.test.ID] {
			continue
		}
		d := &Deviation{Kind: "incorrect-blocking", Verdict: verdict.Bug, Rule: e.rules.StatementView(), Stmt: st, StmtKind: s.kind.String(),
			Table: lt.row.Table,
			// "By the documented rules": the execution's own holder may
			// have let go of the lock (the bug), which a reader checking
			// the server's lock tables then sees.
			Text: fmt.Sprintf("connection %d's %s did not wait for a matching row of %s (the row %s), which by %s's documented locking transaction T%d still holds locked",
				st.Conn, s.kind, lt.row.Table, rowText(lt.test.Values), e.rules.DBMS, lockHolder(lt.row, st.Start, e.txns))}
		if lt.vary != nil {
			if lt.vary.Verdict != verdict.Bug {
				continue // skipping it is documented
			}
			d.Rule = lt.vary.Rule
		} else if sv := e.rules.SavepointUnlock; sv != nil && lt.holder.kept[lt.row] && lt.holder.locks[lt.row] == lockUpdate {
			// The holder's lock is one its ROLLBACK TO SAVEPOINT kept.
			d.Rule, d.Verdict = sv.Rule, sv.Verdict
		}
		e.halt(deviated, "stopped at the first deviation")
		return d
	}
	return nil
}

func lockHolder(r *Row, at int, txns []*Txn) int {
	if v := latest(r, at); v != nil && v.Txn.activeAt(at) {
		return v.Txn.ID
	}
	for _, t := range txns {
		if _, ok := t.locks[r]; ok && t.activeAt(at) {
			return t.ID
		}
	}
	return 0
}

// evalCandidates loads every version the statement may see of its table
// into the candidate table and evaluates its WHERE (and, for a SELECT, its
// output row) on each.
func (e *Engine) evalCandidates(ctx context.Context, s *stmtInfo, tv *tableView, tests []lockTest, extra ...*Version) (matched map[int]bool, tuples map[int]target.Row, ok bool, err error) {
	var more []*Version
	for _, lt := range tests {
		more = append(more, lt.test)
	}
	more = append(more, extra...)
	cands := tv.candidates(more...)
	matched, tuples = map[int]bool{}, map[int]target.Row{}
	if len(cands) == 0 {
		return matched, tuples, true, nil
	}
	if err := e.load(ctx, candPrefix+s.table, cands); err != nil {
		return nil, nil, false, err
	}
	q := &sqlast.Select{Items: []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Column: vidColumn}}},
		From: []sqlast.TableRef{&sqlast.Table{Name: candPrefix + s.table, Alias: s.table}}, Where: s.where}
	if sel, isSel := s.ast.(*sqlast.SelectStmt); isSel {
		inner := sel.Query.(*sqlast.Select)
		q.Items = append(q.Items, inner.Items...)
		if tb := inner.From[0].(*sqlast.Table); tb.Alias != "" {
			q.From[0] = &sqlast.Table{Name: candPrefix + s.table, Alias: tb.Alias}
		}
	}
	sql, rok := e.render(&sqlast.SelectStmt{Query: q})
	if !rok {
		e.halt("cannot render: "+s.kind.String(), "cannot render for the model: %s", sqlast.Format(e.dialect, s.ast))
		return nil, nil, false, nil
	}
	res, msg, err := e.exec(ctx, sql)
	if err != nil {
		return nil, nil, false, err
	}
	if res == nil {
		e.halt("evaluation fails: "+s.kind.String(), "the model cannot evaluate %s: %s", sql, msg)
		return nil, nil, false, nil
	}
	for _, r := range res.Rows {
		id, _ := strconv.Atoi(r[0].S)
		matched[id] = true
		tuples[id] = r[1:]
	}
	return matched, tuples, true, nil
}

// render formats a statement for the evaluator with every * spelled out,
// so the version column never shows.
func (e *Engine) render(st sqlast.Stmt) (string, bool) {
	ok := true
	sqlast.Walk(st, func(n any) bool {
		if sel, is := n.(*sqlast.Select); is {
			if !e.expandStars(sel) {
				ok = false
			}
		}
		return true
	})
	if !ok {
		return "", false
	}
	if ins, is := st.(*sqlast.Insert); is {
		return e.withColumns(ins)
	}
	return sqlast.Format(e.dialect, st), true
}

// expandStars replaces * items by the columns of the FROM tables.
func (e *Engine) expandStars(sel *sqlast.Select) bool {
	if !slices.ContainsFunc(sel.Items, func(it sqlast.SelectItem) bool { return it.Star }) {
		return true
	}
	type src struct {
		name string
		cols []string
	}
	var srcs []src
	var walk func(tr sqlast.TableRef) bool
	walk = func(tr sqlast.TableRef) bool {
		switch tr := tr.(type) {
		case *sqlast.Table:
			ct := e.schema[baseName(tr.Name)]
			if ct == nil {
				return false
			}
			s := src{name: tr.RefName()}
			for _, c := range ct.Columns {
				s.cols = append(s.cols, c.Name)
			}
			srcs = append(srcs, s)
		case *sqlast.Join:
			return walk(tr.Left) && walk(tr.Right)
		case *sqlast.Subquery:
			inner, ok := tr.Query.(*sqlast.Select)
			if !ok || !e.expandStars(inner) {
				return false
			}
			s := src{name: tr.Alias}
			for _, it := range inner.Items {
				switch {
				case it.Alias != "":
					s.cols = append(s.cols, it.Alias)
				default:
					c, ok := it.Expr.(*sqlast.ColumnRef)
					if !ok {
						return false
					}
					s.cols = append(s.cols, c.Column)
				}
			}
			srcs = append(srcs, s)
		default:
			return false
		}
		return true
	}
	for _, tr := range sel.From {
		if !walk(tr) {
			return false
		}
	}
	var items []sqlast.SelectItem
	for _, it := range sel.Items {
		if !it.Star {
			items = append(items, it)
			continue
		}
		for _, s := range srcs {
			if it.Table != "" && !strings.EqualFold(it.Table, s.name) {
				continue
			}
			for _, c := range s.cols {
				items = append(items, sqlast.SelectItem{Expr: &sqlast.ColumnRef{Table: s.name, Column: c}})
			}
		}
	}
	sel.Items = items
	return true
}

// limitPermits decides a SELECT … ORDER BY … LIMIT n whose rows differ
// from the evaluator's: any n rows that a sort could put first are
// permitted, i.e. every row sorted strictly before the n-th row's key and
// the rest from the rows tied with it. It evaluates the query without
// LIMIT, with the sort keys as extra output columns; decided is false
// where that rewrite does not apply (DISTINCT, set operations).
func (e *Engine) limitPermits(ctx context.Context, sel *sqlast.SelectStmt, got []target.Row) (permitted, decided bool, err error) {
	q, ok := sel.Query.(*sqlast.Select)
	if !ok || len(sel.OrderBy) == 0 || slices.ContainsFunc(q.Items, func(it sqlast.SelectItem) bool { return it.Star }) {
		return false, false, nil
	}
	n := *sel.Limit
	wide := *q
	wide.Items = slices.Clone(q.Items)
	for _, o := range sel.OrderBy {
		key := o.Expr
		item := false
		if c, ok := key.(*sqlast.ColumnRef); ok && c.Table == "" {
			for _, it := range q.Items {
				if it.Alias != "" && strings.EqualFold(it.Alias, c.Column) {
					key, item = it.Expr, true
				}
			}
		}
		if q.Distinct && !item {
			// A key that is not an item of the DISTINCT list would change
			// which rows are distinct.
			return false, false, nil
		}
		wide.Items = append(wide.Items, sqlast.SelectItem{Expr: key, Alias: fmt.Sprintf("txlab_k%d", len(wide.Items))})
	}
	sql, ok := e.render(&sqlast.SelectStmt{Query: &wide, OrderBy: sel.OrderBy})
	if !ok {
		return false, false, nil
	}
	res, _, err := e.exec(ctx, sql)
	if err != nil || res == nil {
		return false, false, err
	}
	width := len(q.Items)
	all := res.Rows
	if len(all) <= n {
		return false, false, nil // no tie can explain a difference
	}
	keyOf := func(r target.Row) string { return rowKey(r[width:]) }
	boundary := keyOf(all[n-1])
	var before, tied []target.Row
	for _, r := range all {
		switch {
		case keyOf(r) == boundary:
			tied = append(tied, r[:width])
		case len(tied) == 0:
			before = append(before, r[:width])
		}
	}
	if len(got) != n {
		return false, true, nil
	}
	rest := bagOf(got)
	for _, r := range before {
		if !rest.take(r) {
			return false, true, nil
		}
	}
	pool := bagOf(tied)
	for k, c := range rest {
		if c > pool[k] {
			return false, true, nil
		}
	}
	return true, true, nil
}

// rowText writes a row's values as a DBMS's client shows a tuple: (a, NULL).
func rowText(r target.Row) string {
	vals := make([]string, len(r))
	for i, v := range r {
		vals[i] = v.String()
	}
	return "(" + strings.Join(vals, ", ") + ")"
}

package model

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// runWrite models an INSERT, UPDATE or DELETE: which rows it must wait
// for, whether it must fail with a write conflict, and which versions it
// writes, which it checks against the rows the DBMS reported as affected.
func (e *Engine) runWrite(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo) (*Deviation, error) {
	rd := e.rules.Target[s.kind]
	e.noSemiConsistent = s.joined != nil && !e.rules.Joins.SemiConsistent
	tv := e.view(s.table, t, s.kind, rd, st)
	e.noSemiConsistent = false
	wasUnsure := e.unsure
	defer func() {
		// A write whose rows depend on versions the model leaves open is
		// followed with the plain choice only when its count agrees; what
		// it wrote is then a guess, and nothing after it is judged.
		if e.unsure && !wasUnsure {
			e.halt("open rows: "+s.kind.String(), "the rows %s wrote depend on rows the model leaves open", st.SQL)
		}
	}()
	var vs variations
	var err error
	if vs.subs, vs.subVary, err = e.loadSources(ctx, t, st, s); err != nil {
		return nil, err
	}
	hasWhere := s.kind == KindUpdate || s.kind == KindDelete
	matched, d, stop, err := e.blockingMatches(ctx, t, st, s, tv, hasWhere, &vs)
	if stop || err != nil {
		return d, err
	}
	var missed map[int]bool
	if s.joined != nil && rd == Recheck && e.rules.Joins.RecheckJoined {
		var ok bool
		if missed, ok, err = e.joinRecheck(ctx, st, s, tv); !ok || err != nil {
			return nil, err
		}
	}
	var view []*Version
	var excluded []int
	view, excluded, vs.skips, vs.vary = e.writeView(t, tv, rd, matched, missed, hasWhere)
	if err := e.load(ctx, s.table, view); err != nil {
		return nil, err
	}
	stmt := s.ast
	if len(excluded) > 0 {
		stmt = restrict(stmt, excluded)
	}
	stmt, marked := e.markUpsertUpdates(stmt)
	sql, ok := e.render(stmt)
	if !ok {
		e.halt("cannot render: "+s.kind.String(), "cannot render for the model: %s", st.SQL)
		return nil, nil
	}
	var touched map[int]bool
	if s.kind == KindUpdate {
		if touched, ok, err = e.updateMatches(ctx, st, s, stmt.(*sqlast.Update)); !ok || err != nil {
			return nil, err
		}
	}
	res, after, ok, err := e.execWrite(ctx, t, st, s, sql)
	if !ok || err != nil {
		return nil, err
	}
	var xlocked []*Row
	if marked {
		touched, xlocked = e.unmarkUpserts(view, after, res)
	}
	e.affected = res.Affected
	if st.Affected >= 0 && res.Affected >= 0 && st.Affected != res.Affected {
		return e.wrongAffected(ctx, st, s, view, sql, excluded, &vs, res.Affected)
	}
	e.apply(t, s.table, view, after, touched)
	if !t.noLocks {
		for _, r := range xlocked {
			if t.locks == nil {
				t.locks = map[*Row]strength{}
			}
			t.locks[r] = lockUpdate
		}
	}
	if e.rules.KeyLocks {
		e.markWriteLocks(t, s)
	}
	return nil, nil
}

// variations are what the rules' variations change in a write, tried
// only where its count differs from the plain view's: the versions a
// variation lets its subqueries read (subs, by table, under subVary), and
// the rows a variation lets it skip (skips, under vary).
type variations struct {
	subs    map[string][]*Version
	subVary *Variation
	skips   []int
	vary    *Variation
}

// loadSources loads the views of the tables a write reads in subqueries
// or INSERT … SELECT into their copies, and returns the versions a
// variation lets them read instead, with the variation.
func (e *Engine) loadSources(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo) (map[string][]*Version, *Variation, error) {
	e.reverse = e.rules.ReverseScan != nil && backwards(s.ast)
	e.subquery = true
	defer func() { e.reverse, e.subquery = false, false }()
	subVaried, subVary := map[string][]*Version{}, (*Variation)(nil)
	rd := e.rules.Source[s.kind]
	if s.joined != nil {
		rd = e.rules.Joins.Read
	}
	for _, name := range s.subs {
		sv := e.view(name, t, KindSelect, rd, st)
		load := sv.strict()
		if !sv.plainExact() {
			// The rows the subquery reads are open: follow each view
			// the rules permit, one replay each, where they are few.
			if views := sv.plainViews(); len(views) > 0 && len(views) <= maxChoice {
				load = views[e.choose(len(views))]
			} else {
				e.unsure = true
			}
		}
		if vs, vary := sv.varied(); vary != nil {
			subVaried[name], subVary = vs, vary
		}
		if err := e.load(ctx, subPrefix+name, load); err != nil {
			return nil, nil, err
		}
	}
	return subVaried, subVary, nil
}

// blockingMatches decides, where it matters, which rows of the write's
// view its WHERE matches: a row another transaction holds locked that it
// matches must have made it wait, and one changed after its snapshot
// must have made it fail (first-updater-wins). stop says the caller
// returns d (a deviation, or nil where the engine stopped); matched is
// nil where nothing needed deciding.
func (e *Engine) blockingMatches(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo, tv *tableView, hasWhere bool, vs *variations) (matched map[int]bool, d *Deviation, stop bool, err error) {
	tests := e.lockTests(t, st, s, tv)
	conflicts := e.conflictTests(t, st, s, tv)
	if hasWhere && (len(tests) > 0 || len(conflicts) > 0 || !tv.exact()) {
		m, _, ok, err := e.evalCandidates(ctx, s, tv, tests, conflicts...)
		if err != nil || !ok {
			return nil, nil, true, err
		}
		matched = m
		if s.kind == KindUpdate && e.rules.AutocommitOptimistic != nil && !t.Explicit && !st.Blocked() {
			if tests, err = e.unchangedNeedNotWait(ctx, s, tests, matched); err != nil {
				return nil, nil, true, err
			}
		}
		if d := e.mustBlock(st, s, tv, tests, matched); d != nil {
			if vs.subVary != nil {
				// With the rows a variation lets its subqueries read, the
				// locked rows may not match.
				if vd, err := e.blockWithSubVariation(ctx, st, s, tv, tests, vs.subs, vs.subVary); vd != nil || err != nil {
					return nil, vd, true, err
				}
			}
			return nil, d, true, nil
		}
	}
	if d := e.mustConflict(t, st, s, conflicts, matched, hasWhere); d != nil {
		return nil, d, true, nil
	}
	return matched, nil, false, nil
}

// writeView is the write view: one version per row; rows a re-check
// drops are kept out of the statement's reach (excluded). Where the rules
// permit several versions of a row that the statement would treat
// differently, each combination is followed, one replay each, where they
// are few; a variation that would skip a matching row gives the rows it
// skips and itself. missed are re-checked versions a joined write's
// re-check leaves out (joinRecheck).
func (e *Engine) writeView(t *Txn, tv *tableView, rd Read, matched, missed map[int]bool, hasWhere bool) (view []*Version, excluded, skips []int, vary *Variation) {
	pick, chosen := e.writeChoice(tv, matched, hasWhere)
	view = make([]*Version, len(tv.rows))
	for i, os := range tv.opts {
		o := os[pick[i]]
		view[i] = o.v
		if o.v == nil {
			continue
		}
		if o.gate != nil && (!(matched[o.gate.ID] && matched[o.v.ID]) || missed[o.v.ID]) {
			excluded = append(excluded, o.v.ID)
		}
		if len(os) > 1 && hasWhere {
			for _, alt := range os[1:] {
				if alt.vary != nil && pick[i] != 0 {
					continue // the variation is one of the plain option
				}
				if alt.vary == nil && chosen[i] {
					continue // followed as a choice
				}
				if alt.vary != nil {
					// The variation skips the row when the version it
					// judges by does not match.
					if matched[o.v.ID] && (alt.v == nil || !matched[alt.v.ID]) {
						skips = append(skips, o.v.ID)
						vary = alt.vary
					}
					continue
				}
				if alt.v == nil || matched[alt.v.ID] != matched[o.v.ID] || (matched[o.v.ID] && !slices.Equal(alt.v.Values, o.v.Values)) {
					e.unsure = true
				}
			}
		}
	}
	if rd == Recheck && matched != nil {
		e.recheckLeft(t, tv, pick, matched)
	}
	return view, excluded, skips, vary
}

// updateMatches are the versions the UPDATE up matches on the loaded
// view: an UPDATE that changes nothing still writes a version (or, where
// documented, does not). false, having stopped the engine, where that is
// not decided.
func (e *Engine) updateMatches(ctx context.Context, st *Stmt, s *stmtInfo, up *sqlast.Update) (map[int]bool, bool, error) {
	q := &sqlast.Select{Items: []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Column: vidColumn}}},
		From: []sqlast.TableRef{&sqlast.Table{Name: s.table}}, Where: up.Where}
	ids, ok, err := e.versionIDs(ctx, st, s, q)
	if !ok || err != nil {
		return nil, ok, err
	}
	touched := map[int]bool{}
	for _, id := range ids {
		touched[id] = true
	}
	if s.joined == nil || !s.joined.valued {
		return touched, true, nil
	}
	if ids, ok, err = e.versionIDs(ctx, st, s, s.joined.rows); !ok || err != nil {
		return nil, ok, err
	}
	met := map[int]bool{}
	for _, id := range ids {
		if met[id] {
			// PostgreSQL: "only one of the join rows will be used to
			// update the target row, but which one will be used is not
			// readily predictable" (UPDATE, Notes); SQLite: "arbitrary"
			// (UPDATE FROM); MySQL documents no choice.
			e.halt("open rows: multi-table-update", "a row %s updates meets several rows of the tables it joins, and which one its values come from is arbitrary", st.SQL)
			return nil, false, nil
		}
		met[id] = true
	}
	return touched, true, nil
}

// versionIDs runs q, a query of version ids over the evaluator's tables.
// false, having stopped the engine, where it cannot be rendered or run.
func (e *Engine) versionIDs(ctx context.Context, st *Stmt, s *stmtInfo, q *sqlast.Select) ([]int, bool, error) {
	qs, ok := e.render(&sqlast.SelectStmt{Query: q})
	if !ok {
		e.halt("cannot render: "+s.kind.String(), "cannot render for the model: %s", st.SQL)
		return nil, false, nil
	}
	res, msg, err := e.exec(ctx, qs)
	if err != nil {
		return nil, false, err
	}
	if res == nil {
		e.halt("evaluation fails: "+s.kind.String(), "the model cannot evaluate %s: %s", qs, msg)
		return nil, false, nil
	}
	ids := make([]int, len(res.Rows))
	for i, r := range res.Rows {
		ids[i], _ = strconv.Atoi(r[0].S)
	}
	return ids, true, nil
}

// execWrite runs the write's rendering sql on its view and reads the
// table back. false, having stopped the engine (or doomed t), where the
// write fails on its view.
func (e *Engine) execWrite(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo, sql string) (*target.Result, []stored, bool, error) {
	res, te, err := e.execClass(ctx, sql)
	delete(e.loaded, s.table)
	if err != nil {
		return nil, nil, false, err
	}
	if res == nil && te.Class == target.ClassDuplicateKey && e.rules.LazyUnique && t.Explicit && (s.kind == KindInsert || s.kind == KindInsertSelect) {
		// Documented: the unique check waits for the COMMIT, which must
		// fail. What the transaction sees after this INSERT is a state
		// the model's copy (with its keys) cannot hold.
		if !t.doomed {
			t.doomedAt = st.End
		}
		t.doomed, t.doomedOwn = true, t.doomedOwn || e.wrote(t, s.table)
		return nil, nil, false, nil
	}
	if res == nil {
		msg := te.Error()
		// The DBMS executed it; on the model's view it fails: a view the
		// model does not know well enough (uncommitted rows of others
		// count for uniqueness, not for the view).
		e.halt("succeeded where its view fails: "+s.kind.String(), "on its documented view %s fails (%s), but it succeeded", st.SQL, msg)
		return nil, nil, false, nil
	}
	after, err := e.readBack(ctx, s.table)
	if err != nil {
		return nil, nil, false, err
	}
	return res, after, true, nil
}

// unmarkUpserts restores the version ids markUpsertUpdates negated in
// after, the rows read back, and returns the versions the upsert updated
// and the rows it left as they were but locked (InnoDB), whose count it
// takes off res.
func (e *Engine) unmarkUpserts(view []*Version, after []stored, res *target.Result) (touched map[int]bool, xlocked []*Row) {
	touched = map[int]bool{}
	byID := versionsByID(view)
	for i, a := range after {
		if a.vid >= 0 {
			continue
		}
		after[i].vid = -a.vid
		old := byID[-a.vid]
		if n := e.dialect.UpsertUpdateCount(); e.rules.UpsertLocksRow && old != nil && slices.Equal(old.Values, a.vals) && res.Affected >= n {
			// InnoDB writes no version for a duplicate it leaves as it
			// was, and counts it 0 rows (the marker made it an
			// update); it holds the exclusive lock of the duplicate
			// check.
			res.Affected -= n
			xlocked = append(xlocked, old.Row)
			continue
		}
		touched[-a.vid] = true
	}
	return touched, xlocked
}

// wrongAffected judges a write whose count, got on its view, differs
// from the one the DBMS reported: a variation that explains it, else a
// deviation, unless the rows are open.
func (e *Engine) wrongAffected(ctx context.Context, st *Stmt, s *stmtInfo, view []*Version, sql string, excluded []int, vs *variations, got int64) (*Deviation, error) {
	if vs.subVary != nil {
		if d, err := e.trySubVariation(ctx, st, s, view, sql, vs.subs, vs.subVary); d != nil || err != nil {
			return d, err
		}
	}
	if vs.vary != nil {
		if d, err := e.tryVariation(ctx, st, s, view, append(excluded, vs.skips...), vs.vary, got); d != nil || err != nil {
			return d, err
		}
	}
	if e.unsure || s.kind == KindUpsert {
		// An upsert's conflicts involve rows outside its view (others'
		// uncommitted keys): the model does not decide its count.
		e.halt("open rows: "+s.kind.String(), "cannot decide %s: the rows it affects depend on rows the model leaves open", st.SQL)
		return nil, nil
	}
	want := int64(got)
	d := &Deviation{Kind: "incorrect-affected", Verdict: verdict.Bug, Rule: e.rules.StatementView(), Stmt: st, StmtKind: s.kind.String(),
		Table: s.table, WantAffected: &want,
		Text: fmt.Sprintf("connection %d's %s affected %s; on its documented view it affects %d",
			st.Conn, s.kind, english.Plural(int(st.Affected), "row"), got)}
	e.halt(deviated, "stopped at the first deviation")
	return d, nil
}

// wrote reports whether t has written a version of a row of table.
func (e *Engine) wrote(t *Txn, table string) bool {
	for _, row := range e.h.rows[table] {
		for _, v := range row.Versions {
			if v.Txn == t {
				return true
			}
		}
	}
	return false
}

// differs reports whether a write treats option alt of a row otherwise
// than its plain option o: it matches one and not the other, or matches
// both with other values.
func differs(o, alt option, matched map[int]bool) bool {
	return alt.v == nil || o.v == nil || matched[alt.v.ID] != matched[o.v.ID] || (matched[o.v.ID] && !slices.Equal(alt.v.Values, o.v.Values))
}

// writeChoice picks, per row of the write's view, the option the write
// follows (an index into tv.opts[i]): the plain one, except where the
// rules permit other versions (no variation) that the write would treat
// differently; those rows' combinations are a choice point when they are
// at most maxChoice, and are left open (the plain option) otherwise.
func (e *Engine) writeChoice(tv *tableView, matched map[int]bool, hasWhere bool) (pick []int, chosen []bool) {
	pick, chosen = make([]int, len(tv.opts)), make([]bool, len(tv.opts))
	if !hasWhere {
		return pick, chosen
	}
	// Per row the write treats in several ways: the options it may follow
	// (the plain one first).
	type open struct {
		row  int
		alts []int
	}
	var rows []open
	combos := 1
	for i, os := range tv.opts {
		alts := []int{0}
		for k, alt := range os[1:] {
			if alt.vary == nil && alt.gate == nil && os[0].gate == nil && differs(os[0], alt, matched) {
				alts = append(alts, k+1)
			}
		}
		if len(alts) > 1 {
			rows = append(rows, open{i, alts})
			combos *= len(alts)
			if combos > maxChoice {
				return make([]int, len(tv.opts)), make([]bool, len(tv.opts))
			}
		}
	}
	if len(rows) == 0 {
		return pick, chosen
	}
	c := e.choose(combos)
	for _, r := range rows {
		pick[r.row], chosen[r.row] = r.alts[c%len(r.alts)], true
		c /= len(r.alts)
	}
	return pick, chosen
}

// unchangedNeedNotWait marks the rows an autocommit UPDATE must wait for
// that it leaves unchanged as rows it need not wait for
// (Rules.AutocommitOptimistic): the DBMS evaluates the UPDATE on those
// versions in the candidate table, and a version that comes out as it
// was is one the statement writes nothing to. Where the UPDATE cannot be
// run there, none of the rows must be waited for.
func (e *Engine) unchangedNeedNotWait(ctx context.Context, s *stmtInfo, tests []lockTest, matched map[int]bool) ([]lockTest, error) {
	var ids []int
	for _, lt := range tests {
		if matched[lt.test.ID] && lt.vary == nil {
			ids = append(ids, lt.test.ID)
		}
	}
	if len(ids) == 0 {
		return tests, nil
	}
	mark := func(unchanged map[int]bool) []lockTest {
		out := slices.Clone(tests)
		for i, lt := range out {
			if lt.vary == nil && (unchanged == nil || unchanged[lt.test.ID]) && slices.Contains(ids, lt.test.ID) {
				out[i].vary = e.rules.AutocommitOptimistic
			}
		}
		return out
	}
	up := *s.ast.(*sqlast.Update)
	up.Table = candPrefix + s.table
	unqualified := true
	sqlast.Walk(&up, func(n any) bool {
		if c, ok := n.(*sqlast.ColumnRef); ok && strings.EqualFold(c.Table, s.table) {
			unqualified = false
		}
		return true
	})
	var list []sqlast.Expr
	for _, id := range ids {
		list = append(list, &sqlast.Literal{Kind: sqlast.LitInt, Text: strconv.Itoa(id)})
	}
	up.Where = &sqlast.In{X: &sqlast.ColumnRef{Column: vidColumn}, List: list}
	sql, ok := e.render(&up)
	if !ok || !unqualified {
		return mark(nil), nil
	}
	delete(e.loaded, candPrefix+s.table)
	res, _, err := e.exec(ctx, sql)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return mark(nil), nil
	}
	ct := e.schema[s.table]
	cols := []string{e.q(vidColumn)}
	for _, c := range ct.Columns {
		cols = append(cols, e.q(c.Name))
	}
	after, _, err := e.exec(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+e.q(candPrefix+s.table))
	if err != nil {
		return nil, err
	}
	if after == nil {
		return mark(nil), nil
	}
	before := map[int]target.Row{}
	for _, lt := range tests {
		before[lt.test.ID] = lt.test.Values
	}
	unchanged := map[int]bool{}
	for _, r := range after.Rows {
		id, _ := strconv.Atoi(r[0].S)
		if b, ok := before[id]; ok && slices.Equal(b, r[1:]) {
			unchanged[id] = true
		}
	}
	return mark(unchanged), nil
}

// optimistic reports whether t's writes run optimistically: buffered until
// COMMIT (Rules.CommitConflict), or a single autocommit statement's
// optimistic first try (Rules.AutocommitOptimistic). Such a write locks
// nothing and an UPDATE that changes a row's values writes only those:
// one that leaves a row as it was makes no version of it.
func (e *Engine) optimistic(t *Txn) bool {
	return e.rules.CommitConflict != "" || e.rules.AutocommitOptimistic != nil && !t.Explicit
}

// restrict adds "version column NOT IN (ids)" to a write's WHERE.
func restrict(st sqlast.Stmt, ids []int) sqlast.Stmt {
	var list []sqlast.Expr
	for _, id := range ids {
		list = append(list, &sqlast.Literal{Kind: sqlast.LitInt, Text: strconv.Itoa(id)})
	}
	cond := &sqlast.In{X: &sqlast.ColumnRef{Column: vidColumn}, List: list, Not: true}
	switch st := st.(type) {
	case *sqlast.Update:
		c := *st
		c.Where = sqlast.And(st.Where, cond)
		return &c
	case *sqlast.Delete:
		c := *st
		c.Where = sqlast.And(st.Where, cond)
		return &c
	}
	return st
}

// apply records the versions a write made, by comparing the evaluator's
// table before (view) and after.
func (e *Engine) apply(t *Txn, table string, view []*Version, after []stored, touched map[int]bool) {
	byID := versionsByID(view)
	seen := map[int]bool{}
	for _, a := range after {
		if byID[a.vid] != nil {
			seen[a.vid] = true
		}
	}
	// The rows the statement deleted go first: a REPLACE deletes the row
	// whose key it then inserts, and the insert may take that row again
	// (revived), so its version must follow the deletion.
	for _, old := range view {
		if old != nil && !seen[old.ID] {
			seen[old.ID] = true // once, however often the view lists it
			e.h.write(old.Row, nil, true, t)
		}
	}
	for _, a := range after {
		if a.vid == 0 {
			e.insertOrRevive(t, table, a.vals)
			continue
		}
		old := byID[a.vid]
		if old == nil {
			continue
		}
		switch {
		case !slices.Equal(old.Values, a.vals) && e.rules.ClusteredKey && e.keyChanged(table, old.Values, a.vals):
			// A key update moves the row: InnoDB delete-marks the old
			// record and inserts the new key, which may revive a deleted one.
			e.h.write(old.Row, nil, true, t)
			e.insertOrRevive(t, table, a.vals)
		case !slices.Equal(old.Values, a.vals):
			e.h.write(old.Row, a.vals, false, t)
		case touched[a.vid] && !e.optimistic(t):
			v := e.h.write(old.Row, a.vals, false, t)
			v.NoOp = true
		}
	}
}

// versionsByID indexes the versions of a view (which may hold nils) by id.
func versionsByID(view []*Version) map[int]*Version {
	byID := make(map[int]*Version, len(view))
	for _, v := range view {
		if v != nil {
			byID[v.ID] = v
		}
	}
	return byID
}

// markUpsertUpdates returns an upsert that also negates the version id of
// each row it updates, and true; any other statement as it is. The values
// read back cannot tell a row it left as it was: the negated id does.
// PostgreSQL's ON CONFLICT DO UPDATE writes a new version of the row it
// meets, and locks it, even when no value changes ("all rows will be
// locked when the ON CONFLICT DO UPDATE action is taken", docs 15,
// INSERT: Rules.UpsertWritesRow); InnoDB's ON DUPLICATE KEY UPDATE sets
// an exclusive lock on the duplicate row (MySQL 8.0 manual 17.7.3) and
// writes nothing where it changes nothing (Rules.UpsertLocksRow). Where
// the rules say neither, the rows are not marked.
func (e *Engine) markUpsertUpdates(stmt sqlast.Stmt) (sqlast.Stmt, bool) {
	ins, ok := stmt.(*sqlast.Insert)
	known := e.rules.UpsertWritesRow || e.rules.UpsertLocksRow
	if !ok || !known || ins.OnConflict == nil || ins.OnConflict.DoNothing || ins.OnConflict.Ignore || len(ins.OnConflict.Set) == 0 {
		return stmt, false
	}
	c, oc := *ins, *ins.OnConflict
	oc.Set = append(slices.Clone(oc.Set), sqlast.Assignment{Column: vidColumn,
		Value: &sqlast.Unary{Op: "-", X: &sqlast.ColumnRef{Table: ins.Table, Column: vidColumn}}})
	c.OnConflict = &oc
	return &c, true
}

// conflictTests lists, when the level has first-updater-wins, the versions
// whose match makes the statement's write conflict certain.
func (e *Engine) conflictTests(t *Txn, st *Stmt, s *stmtInfo, tv *tableView) []*Version {
	if e.rules.WriteConflict == "" || t.Snapshot < 0 || !t.pinned || !e.rules.RowLocks || st.Err != nil {
		// No snapshot, or none certainly taken yet (an InnoDB read view
		// exists only once a consistent read reached the engine).
		return nil
	}
	var out []*Version
	for _, r := range tv.rows {
		if own(r, t) != nil {
			continue
		}
		// Changed after the snapshot for certain: after the latest point
		// it may have been taken at.
		snap := committed(r, max(t.Snapshot, t.SnapshotUntil))
		cur := committed(r, st.End)
		for e.rules.NoOpNoVersion && cur != nil && cur.NoOp && cur != snap {
			cur = cur.Prev
		}
		if cur == snap || cur == nil || cur.Txn == t {
			continue
		}
		test := visible(cur)
		if e.rules.Target[s.kind] == SnapTxn {
			test = visible(snap) // PostgreSQL: a row its snapshot finds
		}
		if test != nil {
			out = append(out, test)
		}
	}
	return out
}

// mustConflict reports a write that succeeded where the level's
// first-updater-wins rule requires an error.
func (e *Engine) mustConflict(t *Txn, st *Stmt, s *stmtInfo, tests []*Version, matched map[int]bool, hasWhere bool) *Deviation {
	if e.rules.WriteConflict == "" || st.Err != nil {
		return nil
	}
	hit, duringWait := false, false
	if !e.rules.RowLocks {
		// One writer and a snapshot per transaction (SQLite WAL): a write
		// after another transaction committed since the snapshot fails.
		if t.Snapshot >= 0 {
			for _, o := range e.txns {
				if o != t && o.ID != 0 && o.CommitAt >= t.Snapshot && o.CommitAt < st.Start && o.wrote(e.h) {
					hit = true
				}
			}
		}
	} else if hasWhere {
		for _, v := range tests {
			if matched[v.ID] {
				hit = true
				duringWait = duringWait || st.Blocked() && v.Txn.CommitAt >= st.Start && v.Txn.CommitAt < st.End
			}
		}
	}
	if !hit {
		return nil
	}
	verdict, rule := verdict.Bug, e.rules.StatementView()
	if v := e.rules.ConflictAfterWait; v != nil && duringWait {
		verdict, rule = v.Verdict, v.Rule
	}
	if v := e.rules.SavepointReadView; v != nil && t.viewDropAt > 0 && t.viewDropAt <= st.Start {
		// A ROLLBACK TO dropped the read view the conflict is judged
		// against: with a later one, or none yet, the write conflicts
		// with nothing.
		verdict, rule = v.Verdict, v.Rule
	}
	d := &Deviation{Kind: "missing-error", Verdict: verdict, Rule: rule, Stmt: st, StmtKind: s.kind.String(),
		Table: s.table,
		Text: fmt.Sprintf("connection %d's %s succeeded, but it writes a row changed by a transaction that committed after its snapshot; %s %s documents a %s error",
			st.Conn, s.kind, e.rules.DBMS, e.rules.Level, e.rules.WriteConflict)}
	e.halt(deviated, "stopped at the first deviation")
	return d
}

// wrote reports whether the transaction changed anything. An UPDATE that
// leaves values as they were does not count: SQLite rewrites a cell only
// when its content differs (btreeOverwriteContent), so such a transaction
// commits no WAL frame and leaves other snapshots current.
func (t *Txn) wrote(h *History) bool {
	for _, rows := range h.rows {
		for _, r := range rows {
			for _, v := range r.Versions {
				if v.Txn == t && !v.NoOp {
					return true
				}
			}
		}
	}
	return false
}

// tryVariation re-runs a write with every row a variation may skip left
// out and reports the deviation when the rows the DBMS affected lie between
// that and the plain outcome (the variation skips some of those rows: which
// ones depends on timing).
func (e *Engine) tryVariation(ctx context.Context, st *Stmt, s *stmtInfo, view []*Version, excluded []int, vary *Variation, plain int64) (*Deviation, error) {
	if err := e.load(ctx, s.table, view); err != nil {
		return nil, err
	}
	sql, ok := e.render(restrict(s.ast, excluded))
	if !ok {
		return nil, nil
	}
	res, _, err := e.exec(ctx, sql)
	delete(e.loaded, s.table)
	if err != nil || res == nil || st.Affected < min(res.Affected, plain) || st.Affected > max(res.Affected, plain) {
		return nil, err
	}
	d := &Deviation{Kind: "incorrect-affected", Verdict: vary.Verdict, Rule: vary.Rule, Stmt: st, StmtKind: s.kind.String(), Table: s.table, WantAffected: &plain,
		Text: fmt.Sprintf("connection %d's %s affected %s: it skipped rows that match in the version it waited for (%s)",
			st.Conn, s.kind, english.Plural(int(st.Affected), "row"), vary.Rule.Text)}
	e.halt(deviated, "stopped at the first deviation")
	return d, nil
}

// blockWithSubVariation re-evaluates which locked rows a write matches
// with the versions a variation lets its subqueries read; when then it
// need not have waited, the deviation is the variation's.
func (e *Engine) blockWithSubVariation(ctx context.Context, st *Stmt, s *stmtInfo, tv *tableView, tests []lockTest, subs map[string][]*Version, vary *Variation) (*Deviation, error) {
	for name, vs := range subs {
		if err := e.load(ctx, subPrefix+name, vs); err != nil {
			return nil, err
		}
	}
	m, _, ok, err := e.evalCandidates(ctx, s, tv, tests)
	if err != nil || !ok {
		return nil, err
	}
	halted, reason := e.halted, e.haltReason
	if d := e.mustBlock(st, s, tv, tests, m); d != nil {
		return nil, nil
	}
	e.halted, e.haltReason = halted, reason
	d := &Deviation{Kind: "incorrect-blocking", Verdict: vary.Verdict, Rule: vary.Rule, Stmt: st, StmtKind: s.kind.String(), Table: s.table,
		Text: fmt.Sprintf("connection %d's %s did not wait for a locked row it matches on its documented view; it does not match it with what its subqueries read instead (%s)",
			st.Conn, s.kind, vary.Rule.Text)}
	e.halt(deviated, "stopped at the first deviation")
	return d, nil
}

// trySubVariation re-runs a write with the versions a variation lets its
// subqueries read, and reports the deviation when the rows the DBMS
// affected are the ones it affects then.
func (e *Engine) trySubVariation(ctx context.Context, st *Stmt, s *stmtInfo, view []*Version, sql string, subs map[string][]*Version, vary *Variation) (*Deviation, error) {
	for name, vs := range subs {
		if err := e.load(ctx, subPrefix+name, vs); err != nil {
			return nil, err
		}
	}
	if err := e.load(ctx, s.table, view); err != nil {
		return nil, err
	}
	res, _, err := e.exec(ctx, sql)
	delete(e.loaded, s.table)
	if err != nil || res == nil || res.Affected != st.Affected {
		return nil, err
	}
	d := &Deviation{Kind: "incorrect-affected", Verdict: vary.Verdict, Rule: vary.Rule, Stmt: st, StmtKind: s.kind.String(), Table: s.table,
		Text: fmt.Sprintf("connection %d's %s affected %s: its subqueries read other versions than its documented view (%s)",
			st.Conn, s.kind, english.Plural(int(st.Affected), "row"), vary.Rule.Text)}
	e.halt(deviated, "stopped at the first deviation")
	return d, nil
}

// keyChanged reports whether the clustered key differs between two
// versions.
func (e *Engine) keyChanged(table string, a, b target.Row) bool {
	cols, known := e.clusteredKey(table)
	changed := !e.sameKey(cols, a, b)
	if changed && !known {
		e.halt("clustered index unknown", "cannot tell which index InnoDB clusters %s by (a UNIQUE index added after CREATE TABLE)", table)
	}
	return changed && known
}

// secondaryIndexed returns the positions of table's columns that a
// secondary index holds (UNIQUE columns and constraints, CREATE INDEX),
// the clustered key's columns left out: moving those is ClusteredKey's
// case.
func (e *Engine) secondaryIndexed(table string) []int {
	ct := e.schema[table]
	if ct == nil {
		return nil
	}
	clustered, _ := e.clusteredKey(table)
	var out []int
	add := func(i int) {
		if i >= 0 && !slices.Contains(clustered, i) && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	for _, idx := range e.indexesOf(ct) {
		for _, name := range idx {
			add(slices.IndexFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return c.Name == name }))
		}
	}
	return out
}

// indexesOf lists the columns of each index of table ct: its UNIQUE and
// PRIMARY KEY columns and constraints, its KEYs, the indexes the setup
// created after it and those InnoDB creates for its foreign keys.
func (e *Engine) indexesOf(ct *sqlast.CreateTable) [][]string {
	var out [][]string
	for _, c := range ct.Columns {
		if c.Unique || c.PrimaryKey {
			out = append(out, []string{c.Name})
		}
	}
	return slices.Concat(out, ct.Uniques, [][]string{ct.PrimaryKey}, ct.Indexes, e.laterIndexes[ct.Name], e.foreignKeyIndexes(ct))
}

// coveredBySecondary reports whether a secondary index of table, with the
// clustered key InnoDB stores in it, holds every column of used (nil:
// all of the table's columns): a read may then answer from that index
// alone, without the clustered record (MySQL 8.0 manual 17.6.2.1).
// Where the clustered key is not known, it may.
func (e *Engine) coveredBySecondary(table string, used []string) bool {
	ct := e.schema[table]
	if ct == nil {
		return true
	}
	clustered, known := e.clusteredKey(table)
	if !known {
		return true
	}
	indexes := e.indexesOf(ct)
	if used == nil {
		for _, c := range ct.Columns {
			used = append(used, c.Name)
		}
	}
	for _, idx := range indexes {
		if len(idx) == 0 {
			continue
		}
		covers := true
		for _, u := range used {
			i := slices.IndexFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return strings.EqualFold(c.Name, u) })
			covers = covers && (slices.ContainsFunc(idx, func(n string) bool { return strings.EqualFold(n, u) }) || slices.Contains(clustered, i))
		}
		if covers {
			return true
		}
	}
	return false
}

// indexMoved reports whether version b holds another value than a in a
// column of a secondary index of their table: InnoDB then delete-marked
// a's index record and inserted a new one elsewhere in the index.
func (e *Engine) indexMoved(a, b *Version) bool {
	if a == nil || b == nil || a.Deleted || b.Deleted {
		return false
	}
	for _, i := range e.secondaryIndexed(a.Row.Table) {
		if i < len(a.Values) && i < len(b.Values) && (target.Row{a.Values[i]}).Compare(target.Row{b.Values[i]}) != 0 {
			return true
		}
	}
	return false
}

// insertOrRevive records t's new row vals of table: a new version of the
// row whose deleted clustered key it takes again (see revived), else a new
// row.
func (e *Engine) insertOrRevive(t *Txn, table string, vals target.Row) {
	if r := e.revived(t, table, vals); r != nil {
		e.h.write(r, vals, false, t)
		return
	}
	e.h.insert(table, vals, t)
}

// revived returns the row of table whose clustered key vals takes again
// when its latest version, written by an earlier statement, is a deletion
// (nil: none, or the rule does not apply), or by this statement of t (a
// REPLACE deletes the row whose key it inserts: MySQL 8.0 manual
// 15.2.12). InnoDB inserts such a key by overwriting the delete-marked
// record (and a REPLACE that meets the primary key updates the row in
// place), so the insert is a new version of that row: a snapshot older
// than the deletion then shows the transaction its own insert in the
// row's place, not both.
func (e *Engine) revived(t *Txn, table string, vals target.Row) *Row {
	if !e.rules.ClusteredKey {
		return nil
	}
	cols, known := e.clusteredKey(table)
	if len(cols) == 0 {
		return nil
	}
	for _, r := range e.h.rows[table] {
		v := latest(r, e.h.now)
		if n := len(r.Versions); n > 0 && r.Versions[n-1].At == e.h.now && r.Versions[n-1].Txn == t && !e.referenced(table) {
			// This statement's own deletion. A table a foreign key
			// references keeps it: there a REPLACE deletes the row and its
			// key's actions follow (fk_immediate.go).
			v = r.Versions[n-1]
		}
		if v == nil || !v.Deleted || v.Prev == nil || v.Prev.Values == nil || !e.sameKey(cols, v.Prev.Values, vals) {
			continue
		}
		if !known {
			e.halt("clustered index unknown", "cannot tell which index InnoDB clusters %s by (a UNIQUE index added after CREATE TABLE)", table)
			return nil
		}
		return r
	}
	return nil
}

// referenced reports whether a foreign key of the case references table.
func (e *Engine) referenced(table string) bool {
	return slices.ContainsFunc(e.foreignKeys(), func(k foreignKey) bool { return strings.EqualFold(k.parent, table) })
}

// clusteredKey returns the columns (by position) of table's clustered
// index as InnoDB picks it: the primary key, else the first UNIQUE index
// whose columns are all NOT NULL, else none (a hidden row id). known is
// false when the pick depends on a UNIQUE index created after the table,
// whose effect on the clustered index the model does not claim to know.
func (e *Engine) clusteredKey(table string) (cols []int, known bool) {
	ct := e.schema[table]
	if ct == nil {
		return nil, true
	}
	pos := func(names []string) []int {
		var out []int
		for _, n := range names {
			for i, c := range ct.Columns {
				if c.Name == n {
					out = append(out, i)
				}
			}
		}
		return out
	}
	notNull := func(idx []int) bool {
		for _, i := range idx {
			if !ct.Columns[i].NotNull && !ct.Columns[i].PrimaryKey {
				return false
			}
		}
		return len(idx) > 0
	}
	if len(ct.PrimaryKey) > 0 && !e.rules.KeyIntOnly {
		return pos(ct.PrimaryKey), true
	}
	for i, c := range ct.Columns {
		if c.PrimaryKey && (!e.rules.KeyIntOnly || c.Type == sqlast.TypeInt || c.Type == sqlast.TypeBool) {
			return []int{i}, true
		}
	}
	if e.rules.KeyPrimaryOnly {
		return nil, true
	}
	for i, c := range ct.Columns {
		if c.Unique && c.NotNull {
			return []int{i}, true
		}
	}
	for _, u := range ct.Uniques {
		if idx := pos(u); notNull(idx) {
			return idx, true
		}
	}
	for _, u := range e.laterUnique[table] {
		if idx := pos(u); notNull(idx) {
			return idx, false
		}
	}
	return nil, true
}

// sameKey reports whether two versions agree on the key columns, comparing
// text as the DBMS's default collation does: trailing spaces never count,
// case counts only under a binary one (Rules.KeyBinary: TiDB's
// utf8mb4_bin; MariaDB's default collation ignores case).
func (e *Engine) sameKey(cols []int, a, b target.Row) bool {
	for _, i := range cols {
		x, y := a[i], b[i]
		if x.Null != y.Null {
			return false
		}
		xs, ys := strings.TrimRight(x.S, " "), strings.TrimRight(y.S, " ")
		if x.S != y.S && (e.rules.KeyBinary && xs != ys || !e.rules.KeyBinary && !strings.EqualFold(xs, ys)) {
			return false
		}
	}
	return true
}

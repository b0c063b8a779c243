package model

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/verdict"
)

// PostgreSQL's MERGE (Rules.Merge). The model runs the MERGE itself on the
// evaluator, on a view of its target built so that the DBMS's own join
// over it gives what the documented join gives:
//
//   - the target's rows as Target[KindMerge] reads them, its source's as
//     Source[KindMerge] does (the source tables' copies, as a write's
//     subqueries);
//   - at READ COMMITTED (Recheck) a row a transaction that committed while
//     the MERGE waited changed is its snapshot version where that version
//     takes no UPDATE or DELETE (it was never re-checked), else the re-check
//     (Merge.RecheckFromFirst, RecheckNotMatched): its latest version where
//     that still meets the one source row the first met, so the WHEN MATCHED
//     conditions are evaluated on it from the first; nothing where it is
//     deleted or no longer meets that row, whose WHEN NOT MATCHED clauses
//     then act in a second MERGE over those source rows alone (ON FALSE),
//     the first MERGE leaving them out of its own NOT MATCHED clauses.
//
// A target row that meets several source rows, or a re-checked version that
// meets other source rows than its first did, is not decided (which pair
// PostgreSQL takes first decides the outcome); nor is a MERGE whose target a
// foreign key names, or whose conditions or values hold subqueries. The
// count is the two MERGEs' sum; the rows each UPDATE clause writes carry a
// negated version id (markUpsertUpdates's mark), since an UPDATE that
// changes no value still writes a version.

// mergeInfo is what the model keeps of a MERGE (stmtInfo.merge).
type mergeInfo struct {
	// ast is the MERGE as the evaluator runs it: the target named by its
	// table, the target's columns qualified by it, the source's tables
	// read from their copies (subPrefix), every INSERT with its columns.
	ast *sqlast.Merge
	// on is ast.On; source is ast.Source (as a FROM item over the copies).
	on     sqlast.Expr
	source sqlast.TableRef
	// srcName is the name the statement's columns qualify the source by.
	srcName string
}

// followMerge classifies the MERGE m, the statement st of t; false, having
// stopped the engine, where the model does not follow it.
func (e *Engine) followMerge(t *Txn, st *Stmt, m *sqlast.Merge) (*stmtInfo, bool) {
	stop := func(reason, why string) (*stmtInfo, bool) {
		e.halt(reason, "%s: %s", why, st.SQL)
		return nil, false
	}
	if e.rules.Merge == nil {
		return stop("not modelled: merge", "MERGE is not modelled for "+e.rules.DBMS)
	}
	ct := e.schema[m.Table]
	if ct == nil {
		return stop("not modelled: merge", "MERGE into a table the model does not know")
	}
	for _, k := range e.foreignKeys() {
		if strings.EqualFold(k.child, m.Table) || strings.EqualFold(k.parent, m.Table) {
			// Its checks and actions are followed per single-table write.
			return stop("not modelled: merge under a foreign key", "a MERGE into a table a foreign key names is not modelled")
		}
	}
	c := sqlast.Clone(m).(*sqlast.Merge)
	var srcName string
	var srcCols []string
	switch src := c.Source.(type) {
	case *sqlast.Table:
		if e.schema[src.Name] == nil {
			return stop("not modelled: merge", "MERGE from a table the model does not know")
		}
		srcName = src.RefName()
		for _, col := range e.schema[src.Name].Columns {
			srcCols = append(srcCols, col.Name)
		}
	case *sqlast.Subquery:
		srcName = src.Alias
		sel, ok := src.Query.(*sqlast.Select)
		if ok {
			for _, it := range sel.Items {
				switch x, isCol := it.Expr.(*sqlast.ColumnRef); {
				case it.Alias != "":
					srcCols = append(srcCols, it.Alias)
				case isCol && !it.Star:
					srcCols = append(srcCols, x.Column)
				default:
					ok = false
				}
			}
		}
		if !ok {
			srcCols = nil // its columns are not known: no column is left unqualified
		}
	default:
		return stop("not modelled: merge", "MERGE from a source the model does not know")
	}
	if slices.Contains(tablesIn(c.Source), m.Table) || strings.EqualFold(srcName, m.Table) {
		return stop("not modelled: merge whose source reads its target", "a MERGE whose source reads its own target is not modelled")
	}
	// Its conditions and values, on which the target is named by its table.
	var exprs []sqlast.Expr
	exprs = append(exprs, c.On)
	for _, w := range c.Whens {
		exprs = append(exprs, w.Cond)
		exprs = append(exprs, valuesOf(w.Set)...)
		exprs = append(exprs, w.Values...)
	}
	for _, x := range exprs {
		nested := false
		sqlast.Walk(x, func(n any) bool {
			if _, ok := n.(*sqlast.Table); ok {
				nested = true
			}
			return !nested
		})
		if nested {
			return stop("not modelled: merge with subqueries", "a MERGE whose conditions or values hold subqueries is not modelled")
		}
	}
	if c.Alias != "" {
		for _, x := range exprs {
			renameQualifier(x, c.Alias, c.Table)
		}
		c.Alias = ""
	}
	// The target's columns are qualified by it, so that the queries below
	// can name its versions; a column of the source stays as it is.
	bad := false
	for i, w := range append([]sqlast.MergeWhen{{Cond: c.On}}, c.Whens...) {
		if i > 0 && w.NotMatched {
			continue // these read the source alone
		}
		for _, x := range append([]sqlast.Expr{w.Cond}, valuesOf(w.Set)...) {
			sqlast.Walk(x, func(n any) bool {
				col, ok := n.(*sqlast.ColumnRef)
				if !ok || col.Table != "" {
					return true
				}
				inTarget := e.hasColumn(c.Table, col.Column)
				inSource := slices.ContainsFunc(srcCols, func(s string) bool { return strings.EqualFold(s, col.Column) })
				switch {
				case inTarget && !inSource && srcCols != nil:
					col.Table = c.Table
				case inSource && !inTarget:
				default:
					bad = true
				}
				return true
			})
		}
	}
	if bad {
		return stop("not modelled: merge", "a MERGE with a column the model cannot place in its target or source")
	}
	lock := lockNone
	for i, w := range c.Whens {
		switch w.Action {
		case sqlast.MergeUpdate:
			lock = e.writeLockAtLeast()
		case sqlast.MergeDelete:
			if lock == lockNone {
				lock = lockUpdate
			}
		case sqlast.MergeInsert:
			if len(w.Columns) == 0 {
				if hasGenerated(ct) {
					return stop("cannot render: MERGE", "the values of an INSERT without columns are for the stored columns, by position")
				}
				for _, col := range ct.Columns {
					c.Whens[i].Columns = append(c.Whens[i].Columns, col.Name)
				}
			}
		}
	}
	s := &stmtInfo{kind: KindMerge, table: c.Table, lock: lock}
	s.subs = e.splitSubqueries(c, nil)
	for _, name := range s.subs {
		if e.schema[name] == nil {
			return stop("not modelled: merge", "MERGE reading a table the model does not know")
		}
	}
	s.ast = c
	s.merge = &mergeInfo{ast: c, on: c.On, source: c.Source, srcName: srcName}
	s.where = s.merge.acted(c.Table)
	return s, true
}

// cloneExpr copies an expression.
func cloneExpr(x sqlast.Expr) sqlast.Expr {
	if x == nil {
		return nil
	}
	return sqlast.Clone(&sqlast.SelectStmt{Query: &sqlast.Select{Where: x}}).(*sqlast.SelectStmt).Query.(*sqlast.Select).Where
}

// cloneRef copies a FROM item.
func cloneRef(r sqlast.TableRef) sqlast.TableRef {
	return sqlast.Clone(&sqlast.SelectStmt{Query: &sqlast.Select{From: []sqlast.TableRef{r}}}).(*sqlast.SelectStmt).Query.(*sqlast.Select).From[0]
}

func intLit(n int) sqlast.Expr { return &sqlast.Literal{Kind: sqlast.LitInt, Text: strconv.Itoa(n)} }

// onAs is the join condition with the target's columns qualified by alias.
func (mi *mergeInfo) onAs(target, alias string) sqlast.Expr {
	on := cloneExpr(mi.on)
	renameQualifier(on, target, alias)
	return on
}

// acted is the condition a version of the target (named by its table)
// meets when the MERGE updates or deletes it: it meets a source row for
// which the first WHEN MATCHED clause whose condition holds is an UPDATE
// or a DELETE (CASE takes the first WHEN that is true, as MERGE does).
func (mi *mergeInfo) acted(target string) sqlast.Expr {
	pick := &sqlast.Case{Else: intLit(0)}
	for _, w := range mi.ast.Whens {
		if w.NotMatched {
			continue
		}
		act := intLit(0)
		if w.Action == sqlast.MergeUpdate || w.Action == sqlast.MergeDelete {
			act = intLit(1)
		}
		if w.Cond == nil {
			pick.Else = act
			break
		}
		pick.Whens = append(pick.Whens, sqlast.When{Cond: cloneExpr(w.Cond), Result: act})
	}
	var chosen sqlast.Expr = &sqlast.Binary{Op: "=", L: pick.Else, R: intLit(1)}
	if len(pick.Whens) > 0 {
		chosen = &sqlast.Binary{Op: "=", L: pick, R: intLit(1)}
	}
	return &sqlast.Exists{Sub: &sqlast.Select{Items: []sqlast.SelectItem{{Expr: intLit(1)}},
		From: []sqlast.TableRef{cloneRef(mi.source)}, Where: sqlast.And(cloneExpr(mi.on), chosen)}}
}

// metBy is the condition a source row meets when one of the candidate
// versions ids, under alias, meets it.
func (mi *mergeInfo) metBy(target string, ids []int) sqlast.Expr {
	var list []sqlast.Expr
	for _, id := range ids {
		list = append(list, intLit(id))
	}
	alias := recheckFirst
	return &sqlast.Exists{Sub: &sqlast.Select{Items: []sqlast.SelectItem{{Expr: intLit(1)}},
		From:  []sqlast.TableRef{&sqlast.Table{Name: candPrefix + target, Alias: alias}},
		Where: sqlast.And(&sqlast.In{X: &sqlast.ColumnRef{Table: alias, Column: vidColumn}, List: list}, mi.onAs(target, alias))}}
}

// mergeEPQ is a row of a READ COMMITTED MERGE's view that the MERGE
// re-checks: its snapshot version first, which it updates or deletes,
// and its latest committed version then (nil: deleted).
type mergeEPQ struct {
	i           int
	first, then *Version
}

// runMerge models a MERGE (the package comment above).
func (e *Engine) runMerge(ctx context.Context, t *Txn, st *Stmt, s *stmtInfo) (*Deviation, error) {
	mi := s.merge
	rd := e.rules.Target[s.kind]
	tv := e.view(s.table, t, s.kind, rd, st)
	wasUnsure := e.unsure
	defer func() {
		if e.unsure && !wasUnsure {
			e.halt("open rows: MERGE", "the rows %s wrote depend on rows the model leaves open", st.SQL)
		}
	}()
	var vs variations
	var err error
	if vs.subs, vs.subVary, err = e.loadSources(ctx, t, st, s); err != nil {
		return nil, err
	}
	matched, d, stop, err := e.blockingMatches(ctx, t, st, s, tv, true, &vs)
	if stop || err != nil {
		return d, err
	}
	view := make([]*Version, len(tv.rows))
	var epqs []mergeEPQ
	type open struct{ row, n int }
	var opens []open
	combos := 1
	for i, os := range tv.opts {
		if slices.ContainsFunc(os, func(o option) bool { return o.vary != nil }) {
			e.halt("open rows: MERGE", "a row %s reads may be read as a variation of the rules gives it, which the model does not follow for MERGE", st.SQL)
			return nil, nil
		}
		o := os[0]
		switch {
		case len(os) > 1:
			// The rules permit several versions (a snapshot taken while
			// its statement waited): each combination is a replay, where
			// they are few.
			opens = append(opens, open{i, len(os)})
			combos *= len(os)
		case o.gate == nil:
			view[i] = o.v
		case !matched[o.gate.ID]:
			// Its snapshot version takes no UPDATE or DELETE: the MERGE
			// neither locks nor re-checks it.
			view[i] = o.gate
		default:
			epqs = append(epqs, mergeEPQ{i: i, first: o.gate, then: o.v})
		}
	}
	if combos > maxChoice {
		e.unsure = true
		for _, o := range opens {
			view[o.row] = tv.opts[o.row][0].v
		}
	} else if len(opens) > 0 {
		c := e.choose(combos)
		for _, o := range opens {
			view[o.row] = tv.opts[o.row][c%o.n].v
			c /= o.n
		}
	}
	failed, ok, err := e.mergeRecheck(ctx, st, s, epqs, view)
	if !ok || err != nil {
		return nil, err
	}
	if err := e.load(ctx, s.table, view); err != nil {
		return nil, err
	}
	if ok, err := e.mergeMeetsOnce(ctx, st, s); !ok || err != nil {
		return nil, err
	}
	stmts := []sqlast.Stmt{mergeMarked(mi.ast, s.table, nil)}
	var failedIDs []int
	var failedVs []*Version
	for _, f := range failed {
		failedIDs, failedVs = append(failedIDs, f.first.ID), append(failedVs, f.first)
	}
	if len(failed) > 0 {
		stmts[0] = mergeMarked(mi.ast, s.table, mi.metBy(s.table, failedIDs))
		if second := mi.notMatchedOf(s.table, failedIDs); second != nil {
			stmts = append(stmts, second)
		}
		if err := e.load(ctx, candPrefix+s.table, failedVs); err != nil {
			return nil, err
		}
	}
	var got int64
	for _, m := range stmts {
		sql, ok := e.render(m)
		if !ok {
			e.halt("cannot render: MERGE", "cannot render for the model: %s", st.SQL)
			return nil, nil
		}
		res, te, err := e.execClass(ctx, sql)
		delete(e.loaded, s.table)
		if err != nil {
			return nil, err
		}
		if res == nil {
			e.halt("succeeded where its view fails: MERGE", "on its documented view %s fails (%s), but it succeeded", st.SQL, te.Error())
			return nil, nil
		}
		got += res.Affected
	}
	after, err := e.readBack(ctx, s.table)
	if err != nil {
		return nil, err
	}
	e.affected = got
	if st.Affected >= 0 && st.Affected != got {
		if e.unsure || vs.subVary != nil {
			e.halt("open rows: MERGE", "cannot decide %s: the rows it affects depend on rows the model leaves open", st.SQL)
			return nil, nil
		}
		want := got
		d := &Deviation{Kind: "incorrect-affected", Verdict: verdict.Bug, Rule: e.rules.StatementView(), Stmt: st, StmtKind: s.kind.String(),
			Table: s.table, WantAffected: &want,
			Text: fmt.Sprintf("connection %d's MERGE affected %s; on its documented view it affects %d",
				st.Conn, english.Plural(int(st.Affected), "row"), got)}
		e.halt(deviated, "stopped at the first deviation")
		return d, nil
	}
	touched := map[int]bool{}
	for i, a := range after {
		if a.vid < 0 {
			after[i].vid = -a.vid
			touched[-a.vid] = true
		}
	}
	e.apply(t, s.table, view, after, touched)
	if e.rules.KeyLocks {
		e.markWriteLocks(t, s)
	}
	// PostgreSQL locks a re-checked row's latest version before it
	// re-checks it (nodeModifyTable.c, ExecMergeMatched: table_tuple_lock,
	// then EvalPlanQual; measured on 15.18 and 18.4: a later SKIP LOCKED
	// read skips it though the MERGE left it alone). The manual does not
	// say so: where the MERGE did not write it, its lock is left open.
	for _, p := range epqs {
		r := tv.rows[p.i]
		if n := len(r.Versions); n > 0 && r.Versions[n-1].Txn == t && r.Versions[n-1].At == e.h.now {
			continue
		}
		if t.maybeLocked == nil {
			t.maybeLocked = map[*Row]bool{}
		}
		t.maybeLocked[r] = true
	}
	return nil, nil
}

// mergeRecheck decides what a READ COMMITTED MERGE's re-check does with
// each row epqs lists, setting its version in view: the latest version
// where it still meets the one source row the first version met (and no
// other), nothing where it is deleted or meets none of it. It returns the
// latter, whose source rows go to the WHEN NOT MATCHED clauses; false,
// having stopped the engine, where the re-check is not decided or not
// modelled.
func (e *Engine) mergeRecheck(ctx context.Context, st *Stmt, s *stmtInfo, epqs []mergeEPQ, view []*Version) (failed []mergeEPQ, ok bool, err error) {
	if len(epqs) == 0 {
		return nil, true, nil
	}
	var cands []*Version
	for _, p := range epqs {
		cands = append(cands, p.first)
		if p.then != nil {
			cands = append(cands, p.then)
		}
	}
	if err := e.load(ctx, candPrefix+s.table, cands); err != nil {
		return nil, false, err
	}
	mi := s.merge
	// meets counts the source rows that every given candidate version
	// meets.
	meets := func(ids map[string]int) (int, bool, error) {
		from := []sqlast.TableRef{cloneRef(mi.source)}
		var where sqlast.Expr
		for _, alias := range []string{recheckFirst, recheckThen} {
			id, ok := ids[alias]
			if !ok {
				continue
			}
			from = append(from, &sqlast.Table{Name: candPrefix + s.table, Alias: alias})
			where = sqlast.And(where, sqlast.And(&sqlast.Binary{Op: "=", L: &sqlast.ColumnRef{Table: alias, Column: vidColumn}, R: intLit(id)}, mi.onAs(s.table, alias)))
		}
		q := &sqlast.Select{Items: []sqlast.SelectItem{{Expr: &sqlast.Func{Name: "COUNT", Star: true}}}, From: from, Where: where}
		ids2, ok, err := e.versionIDs(ctx, st, s, q)
		if !ok || err != nil || len(ids2) != 1 {
			return 0, false, err
		}
		return ids2[0], true, nil
	}
	notModelled := func(what string) ([]mergeEPQ, bool, error) {
		e.halt("not modelled: merge re-check", "%s re-checks a row a transaction changed while it waited (%s), which the rules do not follow", st.SQL, what)
		return nil, false, nil
	}
	for _, p := range epqs {
		first, ok, err := meets(map[string]int{recheckFirst: p.first.ID})
		if !ok || err != nil {
			return nil, false, err
		}
		if first != 1 {
			e.halt("open rows: MERGE meets a target row twice", "a row %s re-checks meets %d source rows, and which pair PostgreSQL takes first is not documented", st.SQL, first)
			return nil, false, nil
		}
		both, then := 0, 0
		if p.then != nil {
			if both, ok, err = meets(map[string]int{recheckFirst: p.first.ID, recheckThen: p.then.ID}); !ok || err != nil {
				return nil, false, err
			}
			if then, ok, err = meets(map[string]int{recheckThen: p.then.ID}); !ok || err != nil {
				return nil, false, err
			}
		}
		switch {
		case both == 1 && then == 1:
			if !e.rules.Merge.RecheckFromFirst {
				return notModelled("its latest version still meets its source row")
			}
			view[p.i] = p.then
		case both == 0:
			if !e.rules.Merge.RecheckNotMatched {
				return notModelled("its latest version no longer meets its source row")
			}
			failed = append(failed, p)
		default:
			e.halt("open rows: MERGE re-check meets other source rows", "a row %s re-checks meets other source rows in its latest version than in its first, which the re-check does not join again", st.SQL)
			return nil, false, nil
		}
	}
	return failed, true, nil
}

// mergeMeetsOnce stops the engine where a row of the MERGE's loaded view
// meets several source rows: PostgreSQL acts on the first pair whose
// clause modifies it and fails on a second such pair, and which pair it
// takes first is the join's order.
func (e *Engine) mergeMeetsOnce(ctx context.Context, st *Stmt, s *stmtInfo) (bool, error) {
	mi := s.merge
	q := &sqlast.Select{Items: []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Table: s.table, Column: vidColumn}}},
		From: []sqlast.TableRef{&sqlast.Table{Name: s.table}, cloneRef(mi.source)}, Where: cloneExpr(mi.on)}
	ids, ok, err := e.versionIDs(ctx, st, s, q)
	if !ok || err != nil {
		return false, err
	}
	seen := map[int]bool{}
	for _, id := range ids {
		if seen[id] {
			e.halt("open rows: MERGE meets a target row twice", "a row %s acts on meets several source rows, and which pair PostgreSQL takes first is the join's order", st.SQL)
			return false, nil
		}
		seen[id] = true
	}
	return true, nil
}

// mergeMarked is m as the evaluator runs it: each UPDATE clause negates
// the version id of the row it writes (markUpsertUpdates), and, where
// skip is set, each WHEN NOT MATCHED clause leaves out the source rows
// skip holds (those notMatchedOf acts on).
func mergeMarked(m *sqlast.Merge, target string, skip sqlast.Expr) *sqlast.Merge {
	c := sqlast.Clone(m).(*sqlast.Merge)
	for i, w := range c.Whens {
		switch {
		case w.Action == sqlast.MergeUpdate:
			c.Whens[i].Set = append(slices.Clone(w.Set), sqlast.Assignment{Column: vidColumn,
				Value: &sqlast.Unary{Op: "-", X: &sqlast.ColumnRef{Table: target, Column: vidColumn}}})
		case w.NotMatched && skip != nil:
			c.Whens[i].Cond = sqlast.And(w.Cond, &sqlast.Unary{Op: "NOT", X: cloneExpr(skip)})
		}
	}
	return c
}

// notMatchedOf is the MERGE of m's WHEN NOT MATCHED clauses over the
// source rows the re-checked candidate versions ids met, one source row
// per version (ON FALSE: none is matched); nil where m has none.
func (mi *mergeInfo) notMatchedOf(target string, ids []int) *sqlast.Merge {
	var whens []sqlast.MergeWhen
	for _, w := range mi.ast.Whens {
		if w.NotMatched {
			whens = append(whens, w)
		}
	}
	if len(whens) == 0 {
		return nil
	}
	var list []sqlast.Expr
	for _, id := range ids {
		list = append(list, intLit(id))
	}
	pairs := &sqlast.Select{Items: []sqlast.SelectItem{{Star: true, Table: mi.srcName}},
		From:  []sqlast.TableRef{cloneRef(mi.source), &sqlast.Table{Name: candPrefix + target, Alias: recheckFirst}},
		Where: sqlast.And(&sqlast.In{X: &sqlast.ColumnRef{Table: recheckFirst, Column: vidColumn}, List: list}, mi.onAs(target, recheckFirst))}
	c := &sqlast.Merge{Table: target, Source: &sqlast.Subquery{Query: pairs, Alias: mi.srcName},
		On: &sqlast.Literal{Kind: sqlast.LitBool, Text: "FALSE"}, Whens: whens}
	return sqlast.Clone(c).(*sqlast.Merge)
}

// mergeNumbered is numbered for the INSERT clauses of a MERGE.
func (e *Engine) mergeNumbered(m *sqlast.Merge) string {
	for _, w := range m.Whens {
		if w.Action != sqlast.MergeInsert {
			continue
		}
		if f := e.numbered(&sqlast.Insert{Table: m.Table, Columns: w.Columns, Values: [][]sqlast.Expr{w.Values}}); f != "" {
			return f
		}
	}
	return ""
}

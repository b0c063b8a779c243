package model

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// joinedWrite is what the model keeps of a write across tables that it
// follows as a single-table write (singleTable).
type joinedWrite struct {
	// tables are the joined tables, by name.
	tables []string
	// keyCols are the target's columns that the join's condition reads:
	// those that decide which joined rows a target row meets.
	keyCols []string
	// valued: an assigned value reads a joined row, through a scalar
	// subquery that must meet one row at most.
	valued bool
	// rows is the query of the target versions' ids, one per joined row,
	// over the evaluator's tables.
	rows *sqlast.Select
	// recheck and meets count, over the target's candidates (as
	// recheckFirst and recheckThen) and the joined tables' copies, the
	// joined rows that a first version and a re-checked one both meet,
	// and those the re-checked one meets (EvalPlanQual, joinRecheck).
	recheck, meets *sqlast.Select
}

// The aliases of a target row's first version and its re-checked one in
// joinedWrite.recheck.
const (
	recheckFirst = "txlab_first"
	recheckThen  = "txlab_then"
)

// joinedParts is singleTable for a write across tables that writes one
// table, and for the MySQL family's that writes two (DELETE a, b FROM a
// JOIN b …; UPDATE a JOIN b … SET a.c = …, b.d = …): one single-table
// write each, whose joins read the tables as they were before the
// statement (the caller hides the first part's versions from the
// second's). An UPDATE of two tables is followed only where no value reads
// the other table and the join reads no assigned column: MySQL gives a
// multiple-table UPDATE's assignments no order and may change a table's
// rows while the join still reads them (MySQL 8.0 manual, UPDATE).
func (e *Engine) joinedParts(st sqlast.Stmt, f string) (parts []sqlast.Stmt, js []*joinedWrite, reason string) {
	var targets []string
	var refs []sqlast.TableRef
	var where sqlast.Expr
	up, isUpdate := st.(*sqlast.Update)
	switch st := st.(type) {
	case *sqlast.Update:
		if len(st.Tables) > 0 {
			refs, where = st.Tables, st.Where
			for _, a := range st.Set {
				if !slices.Contains(targets, a.Table) {
					targets = append(targets, a.Table)
				}
			}
		}
	case *sqlast.Delete:
		if len(st.Targets) > 0 {
			refs, where, targets = st.Tables, st.Where, st.Targets
		}
	}
	if len(targets) < 2 || e.rules.Joins == nil {
		out, j, reason := e.singleTable(st, f)
		if reason != "" {
			return nil, nil, reason
		}
		return []sqlast.Stmt{out}, []*joinedWrite{j}, ""
	}
	several := "not modelled: " + f + " of several tables"
	leaves, ons, ok := flattenJoins(refs)
	if len(targets) != 2 || !ok || slices.Contains(targets, "") {
		return nil, nil, several
	}
	names := map[string]string{} // RefName → table
	for _, l := range leaves {
		tb, ok := l.(*sqlast.Table)
		if !ok {
			return nil, nil, several
		}
		names[tb.RefName()] = tb.Name
	}
	if names[targets[0]] == "" || names[targets[0]] == names[targets[1]] {
		return nil, nil, several // a table joined to itself
	}
	if isUpdate {
		cond := joinCondition(ons, where)
		owner := func(c *sqlast.ColumnRef) string {
			if c.Table != "" {
				return c.Table
			}
			return e.ownerOf(c.Column, leaves)
		}
		for _, a := range up.Set {
			bad := false
			sqlast.Walk(a.Value, func(n any) bool {
				if c, ok := n.(*sqlast.ColumnRef); ok && owner(c) != a.Table {
					bad = true // a value that reads the other table
				}
				return !bad
			})
			sqlast.Walk(cond, func(n any) bool {
				if c, ok := n.(*sqlast.ColumnRef); ok && owner(c) == a.Table && strings.EqualFold(c.Column, a.Column) {
					bad = true // the join reads a column it assigns
				}
				return !bad
			})
			if bad {
				return nil, nil, several
			}
		}
	}
	for _, target := range targets {
		var part sqlast.Stmt
		if isUpdate {
			c := *up
			c.Set = nil
			for _, a := range up.Set {
				if a.Table == target {
					c.Set = append(c.Set, a)
				}
			}
			part = &c
		} else {
			c := *st.(*sqlast.Delete)
			c.Targets = []string{target}
			part = &c
		}
		out, j, reason := e.singleTable(sqlast.Clone(part), f)
		if reason != "" {
			return nil, nil, reason
		}
		parts, js = append(parts, out), append(js, j)
	}
	return parts, js, ""
}

// singleTable rewrites st, an UPDATE or DELETE across tables that writes
// one of them, as the single-table write the model follows: the rows it
// writes are those with a row in the join, EXISTS (SELECT 1 FROM others
// WHERE on AND where), and a value that reads the joined row reads it
// through (SELECT value FROM others WHERE on AND where). The joined tables
// are read as the rules' Joins say. reason, where not "", is why the model
// does not follow st; f is st's feature (sqlast.CrossTable).
func (e *Engine) singleTable(st sqlast.Stmt, f string) (out sqlast.Stmt, j *joinedWrite, reason string) {
	notModelled := "not modelled: " + f
	if e.rules.Joins == nil {
		return nil, nil, notModelled
	}
	var refs []sqlast.TableRef
	var where sqlast.Expr
	var written []string // RefNames of the tables it writes
	var set []sqlast.Assignment
	mysql := false
	switch st := st.(type) {
	case *sqlast.Update:
		set, where = st.Set, st.Where
		if len(st.Tables) > 0 {
			mysql, refs = true, st.Tables
		} else {
			refs = append([]sqlast.TableRef{&sqlast.Table{Name: st.Table}}, st.From...)
			written = []string{st.Table}
		}
	case *sqlast.Delete:
		where = st.Where
		switch {
		case len(st.Tables) > 0:
			refs, written = st.Tables, st.Targets
		default:
			refs = append([]sqlast.TableRef{&sqlast.Table{Name: st.Table}}, st.Using...)
			written = []string{st.Table}
		}
	default:
		return nil, nil, notModelled
	}
	leaves, ons, ok := flattenJoins(refs)
	if !ok {
		return nil, nil, notModelled + " over an outer join"
	}
	byRef := map[string]*sqlast.Table{}
	for _, l := range leaves {
		tb, ok := l.(*sqlast.Table)
		if !ok {
			return nil, nil, notModelled + " over a derived table"
		}
		if byRef[tb.RefName()] != nil || e.schema[tb.Name] == nil {
			return nil, nil, notModelled
		}
		byRef[tb.RefName()] = tb
	}
	if mysql {
		for _, a := range set {
			ref := a.Table
			if ref == "" {
				ref = e.ownerOf(a.Column, leaves)
			}
			if ref != "" && !slices.Contains(written, ref) {
				written = append(written, ref)
			}
		}
	}
	if len(written) != 1 || byRef[written[0]] == nil {
		return nil, nil, notModelled + " of several tables"
	}
	target := byRef[written[0]]
	var others []sqlast.TableRef
	for _, l := range leaves {
		if l != target {
			others = append(others, l)
		}
	}
	if len(others) == 0 {
		return nil, nil, notModelled
	}
	cond := joinCondition(ons, where)
	// The copy names the target by its table: references through its
	// alias are renamed, which another table of that name would capture.
	if target.Alias != "" {
		if byRef[target.Name] != nil {
			return nil, nil, notModelled
		}
		renameQualifier(cond, target.Alias, target.Name)
		for _, a := range set {
			renameQualifier(a.Value, target.Alias, target.Name)
		}
	}
	nested := false
	for _, n := range append([]sqlast.Expr{cond}, valuesOf(set)...) {
		sqlast.Walk(n, func(n any) bool {
			if _, ok := n.(*sqlast.Table); ok {
				nested = true
			}
			return !nested
		})
	}
	if nested {
		// Its subqueries read as a write's subqueries do, not as the join.
		return nil, nil, notModelled + " with subqueries"
	}
	// Columns of the target alone are qualified, so that the re-check's
	// queries can name its two versions.
	for _, n := range append([]sqlast.Expr{cond}, valuesOf(set)...) {
		sqlast.Walk(n, func(n any) bool {
			if c, ok := n.(*sqlast.ColumnRef); ok && c.Table == "" && e.refersTo(c, target.Name, leaves) {
				c.Table = target.Name
			}
			return true
		})
	}
	j = &joinedWrite{}
	for _, o := range others {
		if name := o.(*sqlast.Table).Name; !slices.Contains(j.tables, name) {
			j.tables = append(j.tables, name)
		}
	}
	readsTarget := func(n sqlast.Expr) {
		sqlast.Walk(n, func(n any) bool {
			if c, ok := n.(*sqlast.ColumnRef); ok && e.refersTo(c, target.Name, leaves) && !slices.Contains(j.keyCols, c.Column) {
				j.keyCols = append(j.keyCols, c.Column)
			}
			return true
		})
	}
	readsTarget(cond)
	joinedRows := func(items []sqlast.SelectItem) *sqlast.Select {
		q := &sqlast.SelectStmt{Query: &sqlast.Select{Items: items, From: others, Where: cond}}
		return sqlast.Clone(q).(*sqlast.SelectStmt).Query.(*sqlast.Select)
	}
	one := []sqlast.SelectItem{{Expr: &sqlast.Literal{Kind: sqlast.LitInt, Text: "1"}}}
	exists := &sqlast.Exists{Sub: joinedRows(one)}
	if mysql {
		for _, a := range set {
			order := false
			sqlast.Walk(a.Value, func(n any) bool {
				c, ok := n.(*sqlast.ColumnRef)
				other := ok && !strings.EqualFold(c.Column, a.Column) && slices.ContainsFunc(set, func(b sqlast.Assignment) bool { return strings.EqualFold(b.Column, c.Column) })
				if other && e.refersTo(c, target.Name, leaves) {
					order = true
				}
				return !order
			})
			if order {
				// "For multiple-table updates, there is no guarantee that
				// assignments are carried out in any particular order"
				// (MySQL 8.0 manual, UPDATE).
				return nil, nil, notModelled + " whose values read what it assigns"
			}
		}
	}
	var values []sqlast.Assignment
	for _, a := range set {
		v := a.Value
		if e.readsJoinedRow(v, target.Name, leaves) {
			v = &sqlast.ScalarSubquery{Sub: joinedRows([]sqlast.SelectItem{{Expr: v}})}
			j.valued = true
		}
		values = append(values, sqlast.Assignment{Column: a.Column, Value: v})
	}
	if j.valued {
		id := []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Table: target.Name, Column: vidColumn}}}
		rows := joinedRows(id)
		tb := &sqlast.Table{Name: target.Name}
		rows.From = append([]sqlast.TableRef{tb}, rows.From...)
		e.splitSubqueries(&sqlast.SelectStmt{Query: rows}, map[*sqlast.Table]bool{tb: true})
		j.rows = rows
	}
	if e.rules.Joins.RecheckJoined {
		j.recheck, j.meets = e.recheckQueries(target.Name, cond, joinedRows)
	}
	if _, ok := st.(*sqlast.Delete); ok {
		return &sqlast.Delete{Table: target.Name, Where: exists}, j, ""
	}
	return &sqlast.Update{Table: target.Name, Set: values, Where: exists}, j, ""
}

// recheckQueries are joinedWrite's recheck and meets for the target table
// and the join's condition cond; joinedRows gives the join's query with
// the items it is passed.
func (e *Engine) recheckQueries(target string, cond sqlast.Expr, joinedRows func([]sqlast.SelectItem) *sqlast.Select) (recheck, meets *sqlast.Select) {
	count := []sqlast.SelectItem{{Expr: &sqlast.Func{Name: "COUNT", Star: true}}}
	versionOf := func(alias string) (*sqlast.Table, sqlast.Expr) {
		c := sqlast.Clone(&sqlast.SelectStmt{Query: &sqlast.Select{Where: cond}}).(*sqlast.SelectStmt).Query.(*sqlast.Select).Where
		renameQualifier(c, target, alias)
		return &sqlast.Table{Name: candPrefix + target, Alias: alias}, c
	}
	first, onFirst := versionOf(recheckFirst)
	then, onThen := versionOf(recheckThen)
	recheck = joinedRows(count)
	recheck.From = append([]sqlast.TableRef{first, then}, recheck.From...)
	recheck.Where = sqlast.And(onFirst, onThen)
	e.splitSubqueries(&sqlast.SelectStmt{Query: recheck}, map[*sqlast.Table]bool{first: true, then: true})
	then, onThen = versionOf(recheckThen)
	meets = joinedRows(count)
	meets.From = append([]sqlast.TableRef{then}, meets.From...)
	meets.Where = onThen
	e.splitSubqueries(&sqlast.SelectStmt{Query: meets}, map[*sqlast.Table]bool{then: true})
	return recheck, meets
}

// flattenJoins lists the tables of refs, joined by inner or cross joins,
// and their joins' ON conditions; false where a join is an outer one.
func flattenJoins(refs []sqlast.TableRef) (leaves []sqlast.TableRef, ons []sqlast.Expr, ok bool) {
	var walk func(r sqlast.TableRef) bool
	walk = func(r sqlast.TableRef) bool {
		j, isJoin := r.(*sqlast.Join)
		if !isJoin {
			leaves = append(leaves, r)
			return true
		}
		if j.Kind != "JOIN" && j.Kind != "CROSS JOIN" {
			return false
		}
		if !walk(j.Left) || !walk(j.Right) {
			return false
		}
		if j.On != nil {
			ons = append(ons, j.On)
		}
		return true
	}
	for _, r := range refs {
		if !walk(r) {
			return nil, nil, false
		}
	}
	return leaves, ons, true
}

// joinCondition is the joins' ON conditions, in order, and the WHERE:
// what the join's rows meet.
func joinCondition(ons []sqlast.Expr, where sqlast.Expr) sqlast.Expr {
	cond := where
	for i := len(ons) - 1; i >= 0; i-- {
		cond = sqlast.And(ons[i], cond)
	}
	return cond
}

// ownerOf is the RefName of the one table among leaves that has column
// col; "" where none or several have it (the DBMS rejects the statement).
func (e *Engine) ownerOf(col string, leaves []sqlast.TableRef) string {
	owner := ""
	for _, l := range leaves {
		tb := l.(*sqlast.Table)
		if e.hasColumn(tb.Name, col) {
			if owner != "" {
				return ""
			}
			owner = tb.RefName()
		}
	}
	return owner
}

func (e *Engine) hasColumn(table, col string) bool {
	ct := e.schema[table]
	return ct != nil && slices.ContainsFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return strings.EqualFold(c.Name, col) })
}

// refersTo reports whether c reads the target table (named by its table
// name): qualified by it, or unqualified and a column of it alone.
func (e *Engine) refersTo(c *sqlast.ColumnRef, target string, leaves []sqlast.TableRef) bool {
	if c.Table != "" {
		return c.Table == target
	}
	return e.ownerOf(c.Column, leaves) == target
}

// readsJoinedRow reports whether v reads a column of a table other than
// the target's.
func (e *Engine) readsJoinedRow(v sqlast.Expr, target string, leaves []sqlast.TableRef) bool {
	found := false
	sqlast.Walk(v, func(n any) bool {
		if c, ok := n.(*sqlast.ColumnRef); ok && !e.refersTo(c, target, leaves) {
			found = true
		}
		return !found
	})
	return found
}

// renameQualifier makes the column references of n qualified by from
// qualified by to.
func renameQualifier(n sqlast.Expr, from, to string) {
	sqlast.Walk(n, func(n any) bool {
		if c, ok := n.(*sqlast.ColumnRef); ok && c.Table == from {
			c.Table = to
		}
		return true
	})
}

func valuesOf(set []sqlast.Assignment) []sqlast.Expr {
	out := make([]sqlast.Expr, len(set))
	for i, a := range set {
		out[i] = a.Value
	}
	return out
}

// joinRecheck follows PostgreSQL's re-check of a target row that a
// joined write waited for (Recheck: an option with a gate) where the
// row's new version changed columns the join reads: EvalPlanQual joins the
// new version again with the joined rows its first version met, not with
// the joined tables (src/backend/executor/README, EvalPlanQual), so the
// row is written where some joined row meets both versions. It returns
// the new versions no such row meets (the write leaves them out); false,
// having stopped the engine, where the values the write assigns may come
// from a joined row the re-check does not use.
func (e *Engine) joinRecheck(ctx context.Context, st *Stmt, s *stmtInfo, tv *tableView) (map[int]bool, bool, error) {
	ct := e.schema[s.table]
	var idx []int
	for i, c := range ct.Columns {
		if slices.ContainsFunc(s.joined.keyCols, func(k string) bool { return strings.EqualFold(k, c.Name) }) {
			idx = append(idx, i)
		}
	}
	changed := func(a, b *Version) bool {
		for _, i := range idx {
			if i < len(a.Values) && i < len(b.Values) && a.Values[i] != b.Values[i] {
				return true
			}
		}
		return false
	}
	type pair struct{ first, then *Version }
	var pairs []pair
	var cands []*Version
	for _, os := range tv.opts {
		for _, o := range os {
			if o.gate != nil && o.v != nil && changed(o.gate, o.v) {
				pairs = append(pairs, pair{o.gate, o.v})
				for _, v := range []*Version{o.gate, o.v} {
					if !slices.Contains(cands, v) {
						cands = append(cands, v)
					}
				}
			}
		}
	}
	if len(pairs) == 0 {
		return nil, true, nil
	}
	if err := e.load(ctx, candPrefix+s.table, cands); err != nil {
		return nil, false, err
	}
	count := func(q *sqlast.Select, ids map[string]int) (int, bool, error) {
		c := sqlast.Clone(&sqlast.SelectStmt{Query: q}).(*sqlast.SelectStmt)
		sel := c.Query.(*sqlast.Select)
		for _, alias := range []string{recheckFirst, recheckThen} {
			if id, ok := ids[alias]; ok {
				sel.Where = sqlast.And(&sqlast.Binary{Op: "=", L: &sqlast.ColumnRef{Table: alias, Column: vidColumn}, R: &sqlast.Literal{Kind: sqlast.LitInt, Text: strconv.Itoa(id)}}, sel.Where)
			}
		}
		sql, ok := e.render(c)
		if !ok {
			e.halt("cannot render: "+s.kind.String(), "cannot render for the model: %s", st.SQL)
			return 0, false, nil
		}
		res, msg, err := e.exec(ctx, sql)
		if err != nil || res == nil {
			if err == nil {
				e.halt("evaluation fails: "+s.kind.String(), "the model cannot evaluate %s: %s", sql, msg)
			}
			return 0, false, err
		}
		n, _ := strconv.Atoi(res.Rows[0][0].S)
		return n, true, nil
	}
	miss := map[int]bool{}
	for _, p := range pairs {
		both, ok, err := count(s.joined.recheck, map[string]int{recheckFirst: p.first.ID, recheckThen: p.then.ID})
		if !ok || err != nil {
			return nil, false, err
		}
		if both == 0 {
			miss[p.then.ID] = true
			continue
		}
		if !s.joined.valued {
			continue
		}
		meets, ok, err := count(s.joined.meets, map[string]int{recheckThen: p.then.ID})
		if !ok || err != nil {
			return nil, false, err
		}
		if meets != both {
			e.halt("open rows: multi-table-update", "a row %s re-checks after a wait meets joined rows its first version did not, and its values come from the rows the re-check keeps", st.SQL)
			return nil, false, nil
		}
	}
	return miss, true, nil
}

// cteAlone returns the write of a PostgreSQL data-modifying CTE that is
// the statement's only write and the only thing its body reads — WITH w
// AS (INSERT|UPDATE|DELETE … RETURNING …) SELECT … FROM w — without its
// RETURNING (the model does not judge a write's returned rows), and
// whether the body returns exactly those rows (SELECT * FROM w). Such a
// statement writes as its CTE alone does: "data-modifying statements in
// WITH are executed exactly once, and always to completion, independently
// of whether the primary query reads all (or indeed any) of their output",
// and the primary query sees their effects only through RETURNING
// (PostgreSQL docs, WITH Queries, Data-Modifying Statements in WITH).
// nil for any other statement: two writes in one statement (a CTE and an
// outer write) run on one snapshot, which the model does not follow.
func (e *Engine) cteAlone(st sqlast.Stmt) (sqlast.Stmt, bool) {
	w, ok := st.(*sqlast.With)
	if !ok || !e.dialect.SupportsWritingCTE() || len(w.CTEs) != 1 {
		return nil, false
	}
	name := w.CTEs[0].Name
	var write sqlast.Stmt
	switch s := w.CTEs[0].Stmt.(type) {
	case *sqlast.Insert:
		c := *s
		c.Returning = nil
		write = &c
	case *sqlast.Update:
		if s.MultiTable() {
			return nil, false
		}
		c := *s
		c.Returning = nil
		write = &c
	case *sqlast.Delete:
		if s.MultiTable() {
			return nil, false
		}
		c := *s
		c.Returning = nil
		write = &c
	default:
		return nil, false
	}
	body, ok := w.Body.(*sqlast.SelectStmt)
	if !ok || body.Lock != sqlast.LockNone {
		return nil, false
	}
	only := true
	sqlast.Walk(body, func(n any) bool {
		if t, ok := n.(*sqlast.Table); ok && t.Name != name {
			only = false
		}
		return only
	})
	if !only {
		return nil, false
	}
	sel, ok := body.Query.(*sqlast.Select)
	counts := ok && !sel.Distinct && sel.Where == nil && body.Limit == nil && len(sel.Items) == 1 && sel.Items[0].Star &&
		sel.Items[0].Table == "" && len(sel.From) == 1
	if counts {
		t, ok := sel.From[0].(*sqlast.Table)
		counts = ok && t.Name == name
	}
	return write, counts
}

// cteStmt is st as its CTE's write: the rows the body returned are the
// rows it wrote when it returns them all (counts), else the count is not
// known; the rows are no result the model judges.
func cteStmt(st *Stmt, counts bool) *Stmt {
	c := *st
	c.Affected = -1
	if counts && st.Err == nil && st.Rows != nil {
		c.Affected = int64(len(st.Rows))
	}
	c.Rows, c.Columns = nil, nil
	return &c
}

// runParts follows a write of two tables as its parts, one after the
// other, the second's joins reading the tables as they were before the
// first (joinedParts), each on its own view; the DBMS's count is their
// sum. Where the sum differs, which part's rows the DBMS counted
// otherwise is not decided: the engine stops.
func (e *Engine) runParts(ctx context.Context, t *Txn, st *Stmt, parts []*stmtInfo) (*Deviation, error) {
	part := *st
	part.Affected = -1 // judged on the sum below
	var sum int64
	from := e.h.nextVID
	for i, p := range parts {
		e.affected = -1
		if i > 0 {
			e.hideFrom = from
		}
		dev, err := e.run(ctx, t, &part, p)
		e.hideFrom = 0
		if dev != nil || err != nil || e.halted != "" {
			if dev != nil {
				dev.Stmt = st
			}
			return dev, err
		}
		if e.affected < 0 {
			e.halt("open rows: "+p.kind.String(), "cannot decide %s: a part of it wrote rows the model did not count", st.SQL)
			return nil, nil
		}
		sum += e.affected
	}
	if st.Affected >= 0 && sum != st.Affected {
		e.halt("open rows: "+parts[0].kind.String(), "cannot decide %s: it affected %d rows, its parts %d on their views, and which part the DBMS counted otherwise is open", st.SQL, st.Affected, sum)
	}
	return nil, nil
}

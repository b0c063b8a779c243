package gen

import (
	"slices"

	"github.com/txlab/txlab/sqlast"
)

// Writes across tables (features multi-table-update, multi-table-delete,
// merge, cte-write): a write of one table that reads another, drawn
// between two distinct tables of the schema. They carry no subqueries (the
// MySQL family rejects one that reads a table the statement writes, error
// 1093) and qualify every column, since generated tables share column
// names. Where the DBMS leaves a result to the join order — which of
// several joined rows an UPDATE takes its value from (PostgreSQL's UPDATE
// … FROM: "only one of the join rows will be used … which one … is not
// readily predictable"; MySQL's multiple-table UPDATE), or MERGE's
// "cannot affect row a second time" — a value read from the other table
// comes only through a join on one of its single-column keys, so that each
// row meets one row of it at most.

// twoTables draws the written table and the one it reads; nil when the
// schema has one table.
func (g *Generator) twoTables() (*TableInfo, *TableInfo) {
	if len(g.schema.Tables) < 2 {
		return nil, nil
	}
	idx := g.r.Perm(len(g.schema.Tables))
	return g.schema.Tables[idx[0]], g.schema.Tables[idx[1]]
}

// keyJoin equates a column of a with a single-column key of b (so each row
// of a meets one row of b at most) and reports whether it found one; else
// it returns joinOn's condition.
func (g *Generator) keyJoin(a, b *TableInfo, qa, qb string) (sqlast.Expr, bool) {
	type pair struct{ x, k *ColumnInfo }
	var pairs []pair
	for _, ks := range b.KeySets() {
		if len(ks) != 1 {
			continue
		}
		k := b.Column(ks[0])
		for _, x := range a.Columns {
			if categoryOf(x.Type) == categoryOf(k.Type) {
				pairs = append(pairs, pair{x, k})
			}
		}
	}
	if len(pairs) == 0 || !g.chance(0.85) {
		return g.qualifiedJoin(a, b, qa, qb), false
	}
	p := pairs[g.r.IntN(len(pairs))]
	return &sqlast.Binary{Op: "=", L: &sqlast.ColumnRef{Table: qa, Column: p.x.Name}, R: &sqlast.ColumnRef{Table: qb, Column: p.k.Name}}, true
}

// qualifiedJoin is joinOn with the tables' qualifiers qa and qb.
func (g *Generator) qualifiedJoin(a, b *TableInfo, qa, qb string) sqlast.Expr {
	on := g.joinOn(a, b)
	sqlast.Walk(on, func(n any) bool {
		if c, ok := n.(*sqlast.ColumnRef); ok {
			switch c.Table {
			case a.Name:
				c.Table = qa
			case b.Name:
				c.Table = qb
			}
		}
		return true
	})
	return on
}

// valueScope is the scope of the value assigned to column c of t: the
// columns of others (tables whose rows are unique per written row), then
// t's own columns except those other assignments write (MySQL gives a
// multiple-table UPDATE's assignments no order), c last so that setValue
// finds c itself as the column it shifts.
func valueScope(t *TableInfo, qual string, c *ColumnInfo, assigned []string, others []scopeCol) *scope {
	cols := slices.Clone(others)
	for _, sc := range tableScope(t, qual) {
		if sc.Name != c.Name && !slices.Contains(assigned, sc.Name) {
			cols = append(cols, sc)
		}
	}
	cols = append(cols, scopeCol{Qual: qual, Name: c.Name, Type: c.Type, Src: c, From: t.Name})
	return &scope{cols: cols, noSub: true}
}

// assignedColumns draws 1–2 columns of t to assign.
func (g *Generator) assignedColumns(t *TableInfo) []*ColumnInfo {
	n := 1
	if len(t.Columns) > 1 && g.chance(0.3) {
		n = 2
	}
	var out []*ColumnInfo
	for _, i := range g.r.Perm(len(t.Columns))[:n] {
		out = append(out, t.Columns[i])
	}
	return out
}

func colNames(cols []*ColumnInfo) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// multiUpdate draws a write of one table that reads another: the MySQL
// family's UPDATE a JOIN b ON … SET a.c = … [, b.d = …] (or UPDATE a, b
// SET … WHERE …), elsewhere UPDATE a SET c = … FROM b WHERE ….
func (g *Generator) multiUpdate() sqlast.Stmt {
	a, b := g.twoTables()
	if a == nil {
		return nil
	}
	on, keyed := g.keyJoin(a, b, a.Name, b.Name)
	// The MySQL family may change the other table's rows too; then the
	// values assigned to a read none of its columns (the assignments
	// have no order there).
	alsoB := g.cfg.Dialect == sqlast.MySQL && g.chance(0.3)
	var others []scopeCol
	if keyed && !alsoB {
		others = tableScope(b, b.Name)
	}
	both := &scope{cols: append(tableScope(a, a.Name), tableScope(b, b.Name)...), noSub: true}
	up := &sqlast.Update{}
	cols := g.assignedColumns(a)
	for _, c := range cols {
		s := valueScope(a, a.Name, c, colNames(cols), others)
		up.Set = append(up.Set, sqlast.Assignment{Column: c.Name, Value: g.setValue(s, c)})
	}
	var where sqlast.Expr
	if g.chance(0.7) {
		where = g.pred(both, 1)
	}
	if g.cfg.Dialect != sqlast.MySQL {
		up.Table = a.Name
		up.From = []sqlast.TableRef{&sqlast.Table{Name: b.Name}}
		up.Where = sqlast.And(on, where)
		return up
	}
	for i := range up.Set {
		up.Set[i].Table = a.Name
	}
	if alsoB {
		// The other table's rows change too, each from its own columns:
		// one of them may meet several rows of a.
		d := b.Columns[g.r.IntN(len(b.Columns))]
		s := valueScope(b, b.Name, d, []string{d.Name}, nil)
		up.Set = append(up.Set, sqlast.Assignment{Table: b.Name, Column: d.Name, Value: g.setValue(s, d)})
	}
	if g.chance(0.25) {
		up.Tables = []sqlast.TableRef{&sqlast.Table{Name: a.Name}, &sqlast.Table{Name: b.Name}}
		up.Where = sqlast.And(on, where)
		return up
	}
	up.Tables = []sqlast.TableRef{&sqlast.Join{Kind: "JOIN", Left: &sqlast.Table{Name: a.Name}, Right: &sqlast.Table{Name: b.Name}, On: on}}
	up.Where = where
	return up
}

// multiDelete draws a delete of one table's rows that meet rows of another:
// the MySQL family's DELETE a[, b] FROM a JOIN b ON … [WHERE …], PostgreSQL's
// DELETE FROM a USING b WHERE …. SQLite has neither.
func (g *Generator) multiDelete() sqlast.Stmt {
	a, b := g.twoTables()
	if a == nil || g.cfg.Dialect == sqlast.SQLite {
		return nil
	}
	on := g.qualifiedJoin(a, b, a.Name, b.Name)
	var where sqlast.Expr
	if g.chance(0.7) {
		where = g.pred(&scope{cols: append(tableScope(a, a.Name), tableScope(b, b.Name)...), noSub: true}, 1)
	}
	if g.cfg.Dialect != sqlast.MySQL {
		return &sqlast.Delete{Table: a.Name, Using: []sqlast.TableRef{&sqlast.Table{Name: b.Name}}, Where: sqlast.And(on, where)}
	}
	del := &sqlast.Delete{Targets: []string{a.Name}}
	if g.chance(0.25) {
		del.Targets = append(del.Targets, b.Name)
	}
	if g.chance(0.25) {
		del.Tables = []sqlast.TableRef{&sqlast.Table{Name: a.Name}, &sqlast.Table{Name: b.Name}}
		del.Where = sqlast.And(on, where)
		return del
	}
	del.Tables = []sqlast.TableRef{&sqlast.Join{Kind: "JOIN", Left: &sqlast.Table{Name: a.Name}, Right: &sqlast.Table{Name: b.Name}, On: on}}
	del.Where = where
	return del
}

// merge draws PostgreSQL's MERGE INTO a USING source ON … WHEN …: the
// source is b joined on one of its single-column keys, or (SELECT DISTINCT
// x FROM b [WHERE …]) AS s0, one row per value, so that no row of a meets
// two source rows (which PostgreSQL refuses: "MERGE command cannot affect
// row a second time"). In each kind of WHEN clause the conditional ones
// come first and one unconditional at most closes them (PostgreSQL refuses
// a clause after an unconditional one as unreachable).
func (g *Generator) merge() sqlast.Stmt {
	a, b := g.twoTables()
	if a == nil || g.cfg.Dialect != sqlast.Postgres {
		return nil
	}
	m := &sqlast.Merge{Table: a.Name}
	on, keyed := g.keyJoin(a, b, a.Name, b.Name)
	var src []scopeCol // the source's columns
	if keyed && g.chance(0.7) {
		m.Source, m.On = &sqlast.Table{Name: b.Name}, on
		src = tableScope(b, b.Name)
	} else {
		// One column of b under the name k, distinct, equated with a column
		// of a of its category.
		var x, k *ColumnInfo
		for _, i := range g.r.Perm(len(b.Columns)) {
			for _, j := range g.r.Perm(len(a.Columns)) {
				if categoryOf(b.Columns[i].Type) == categoryOf(a.Columns[j].Type) {
					k, x = b.Columns[i], a.Columns[j]
					break
				}
			}
			if k != nil {
				break
			}
		}
		if k == nil {
			return nil
		}
		sel := &sqlast.Select{Distinct: true, Items: []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Column: k.Name}, Alias: "k"}},
			From: []sqlast.TableRef{&sqlast.Table{Name: b.Name}}}
		if g.chance(0.5) {
			sel.Where = g.pred(&scope{cols: tableScope(b, ""), noSub: true}, 1)
		}
		m.Source = &sqlast.Subquery{Query: sel, Alias: "s0"}
		m.On = &sqlast.Binary{Op: "=", L: &sqlast.ColumnRef{Table: a.Name, Column: x.Name}, R: &sqlast.ColumnRef{Table: "s0", Column: "k"}}
		src = []scopeCol{{Qual: "s0", Name: "k", Type: k.Type, Src: k, From: "s0"}}
	}
	both := &scope{cols: append(tableScope(a, a.Name), src...), noSub: true}
	srcOnly := &scope{cols: src, noSub: true}
	for _, notMatched := range []bool{false, true} {
		if g.chance(0.25) {
			continue
		}
		n := 1 + g.r.IntN(2)
		for i := range n {
			w := sqlast.MergeWhen{NotMatched: notMatched}
			last := i == n-1
			if !last || g.chance(0.5) {
				if notMatched {
					w.Cond = g.pred(srcOnly, 1)
				} else {
					w.Cond = g.pred(both, 1)
				}
			}
			switch p := g.r.Float64(); {
			case p < 0.15:
				w.Action = sqlast.MergeDoNothing
			case notMatched:
				w.Action = sqlast.MergeInsert
				w.Columns, w.Values = g.mergeInsert(a, src)
			case p < 0.7:
				w.Action = sqlast.MergeUpdate
				cols := g.assignedColumns(a)
				for _, c := range cols {
					s := valueScope(a, a.Name, c, nil, src)
					w.Set = append(w.Set, sqlast.Assignment{Column: c.Name, Value: g.setValue(s, c)})
				}
			default:
				w.Action = sqlast.MergeDelete
			}
			m.Whens = append(m.Whens, w)
		}
	}
	if len(m.Whens) == 0 {
		m.Whens = []sqlast.MergeWhen{{Action: sqlast.MergeDelete}}
	}
	return m
}

// mergeInsert draws the columns and values of MERGE's INSERT into t: every
// column it must name, values from the source where one fits, else
// constants. The columns are always named (IsoRel's copy of the table has
// hidden columns besides).
func (g *Generator) mergeInsert(t *TableInfo, src []scopeCol) ([]string, []sqlast.Expr) {
	_, cols := g.insertColumns(t)
	s := &scope{cols: src}
	var names []string
	var vals []sqlast.Expr
	for _, c := range cols {
		names = append(names, c.Name)
		if m := s.colsFor(c.Type); len(m) > 0 && g.chance(0.6) {
			vals = append(vals, g.pickCol(m).ref())
			continue
		}
		vals = append(vals, g.rowValue(t, c).Literal())
	}
	return names, vals
}

// cteWrite draws PostgreSQL's data-modifying CTE: WITH w AS (an INSERT,
// UPDATE or DELETE of a, RETURNING its columns) followed by a read of w, or
// by a write of another table b that reads w. The outer statement never
// writes a: PostgreSQL runs the CTE and the outer statement on one snapshot,
// and says that updating the same row twice in a single statement "is not
// supported" and unpredictable.
func (g *Generator) cteWrite() sqlast.Stmt {
	if g.cfg.Dialect != sqlast.Postgres {
		return nil
	}
	a := g.table()
	var ret []sqlast.SelectItem
	for _, c := range a.Columns {
		ret = append(ret, sqlast.SelectItem{Expr: &sqlast.ColumnRef{Column: c.Name}})
	}
	var inner sqlast.Stmt
	switch p := g.r.Float64(); {
	case p < 0.4:
		up := g.Update(a)
		up.Returning = ret
		inner = up
	case p < 0.75:
		del := g.Delete(a)
		del.Returning = ret
		inner = del
	default:
		ins := g.insertValues(a, 1+g.r.IntN(2))
		if ins.Columns == nil {
			ins.Columns = columnNames(a)
		}
		ins.Returning = ret
		inner = ins
	}
	w := &sqlast.With{CTEs: []sqlast.CTE{{Name: "w", Stmt: inner}}}
	wTable := []sqlast.TableRef{&sqlast.Table{Name: "w"}}
	var b *TableInfo
	for _, t := range g.schema.Tables {
		if t != a && g.chance(0.5) {
			b = t
		}
	}
	if b == nil || g.chance(0.5) {
		sel := &sqlast.Select{Items: []sqlast.SelectItem{{Star: true}}, From: wTable}
		if g.chance(0.3) {
			sel.Items = []sqlast.SelectItem{{Expr: &sqlast.Func{Name: "COUNT", Star: true}, Alias: "a0"}}
		}
		w.Body = &sqlast.SelectStmt{Query: sel}
		return w
	}
	// b's rows that match a row the CTE returned, on a column of one
	// category.
	var x, k *ColumnInfo
	for _, i := range g.r.Perm(len(b.Columns)) {
		for _, j := range g.r.Perm(len(a.Columns)) {
			if categoryOf(b.Columns[i].Type) == categoryOf(a.Columns[j].Type) {
				x, k = b.Columns[i], a.Columns[j]
				break
			}
		}
		if x != nil {
			break
		}
	}
	var match sqlast.Expr
	if x != nil {
		match = &sqlast.In{X: &sqlast.ColumnRef{Column: x.Name}, Sub: &sqlast.Select{
			Items: []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Column: k.Name}}}, From: wTable}}
	}
	if g.chance(0.5) {
		up := g.Update(b)
		if match != nil {
			up.Where = sqlast.And(match, up.Where)
		}
		w.Body = up
	} else {
		del := g.Delete(b)
		if match != nil {
			del.Where = sqlast.And(match, del.Where)
		}
		w.Body = del
	}
	return w
}

package gen

import (
	"fmt"
	"slices"

	"github.com/txlab/txlab/sqlast"
)

// Statement returns a random data statement: SELECT, INSERT (plain, INSERT …
// SELECT, upsert or REPLACE), UPDATE or DELETE, or now and then a
// statement of a feature the target supports (statementFeatures).
func (g *Generator) Statement() sqlast.Stmt {
	if st := g.featureStatement(); st != nil {
		return st
	}
	switch p := g.r.Float64(); {
	case p < 0.4:
		return g.Select()
	case p < 0.62:
		return g.Insert(g.table())
	case p < 0.87:
		return g.Update(g.table())
	default:
		return g.Delete(g.table())
	}
}

func (g *Generator) table() *TableInfo {
	return g.schema.Tables[g.r.IntN(len(g.schema.Tables))]
}

// Select returns a random query: a single-table SELECT, a two-table join, a
// SELECT from a derived table, a UNION or an aggregate, with ORDER BY and
// locking clauses where every dialect accepts them.
func (g *Generator) Select() *sqlast.SelectStmt {
	switch p := g.r.Float64(); {
	case p < 0.45:
		return g.simpleSelect()
	case p < 0.65 && len(g.schema.Tables) > 1:
		return g.joinSelect()
	case p < 0.75:
		return g.derivedSelect()
	case p < 0.87:
		return g.unionSelect()
	default:
		return g.aggregateSelect()
	}
}

// lock draws a locking clause for a query that may carry one.
func (g *Generator) lock() sqlast.LockMode {
	if !g.cfg.Dialect.SupportsLocking() {
		return sqlast.LockNone
	}
	switch p := g.r.Float64(); {
	case p < 0.25:
		if g.cfg.NoSharedLocks {
			return sqlast.LockNone
		}
		return g.noLocks(g.weaker(sqlast.LockShare, "for-key-share", sqlast.LockKeyShare))
	case p < 0.5:
		return g.noLocks(g.weaker(sqlast.LockUpdate, "for-no-key-update", sqlast.LockNoKeyUpdate))
	}
	return sqlast.LockNone
}

// noLocks is m, or no lock where the target has no locking reads (the
// draw of m is made all the same, so the rest of the case is too).
func (g *Generator) noLocks(m sqlast.LockMode) sqlast.LockMode {
	if g.cfg.NoLockingReads {
		return sqlast.LockNone
	}
	return m
}

// items draws 1..3 output expressions over s. Computed ones get aliases
// a0, a1, ... so ORDER BY can name them.
func (g *Generator) items(s *scope) []sqlast.SelectItem {
	n := 1 + g.r.IntN(3)
	out := make([]sqlast.SelectItem, n)
	for i := range out {
		if g.chance(0.7) {
			out[i] = sqlast.SelectItem{Expr: g.pickCol(s.cols).ref()}
			continue
		}
		want := g.pickCol(s.cols).Type
		if categoryOf(want) == catNum {
			want = sqlast.TypeDouble
		}
		e, _ := g.value(s, want, 1)
		out[i] = sqlast.SelectItem{Expr: e, Alias: fmt.Sprintf("a%d", i)}
	}
	return out
}

// orderBy draws ORDER BY keys. With DISTINCT, PostgreSQL demands keys from
// the select list, so keys then come from the items (by alias if computed).
func (g *Generator) orderBy(s *scope, items []sqlast.SelectItem, distinct bool) []sqlast.OrderItem {
	if !g.chance(0.4) {
		return nil
	}
	n := 1 + g.r.IntN(2)
	var out []sqlast.OrderItem
	for range n {
		var e sqlast.Expr
		star := len(items) == 1 && items[0].Star
		if !distinct || star {
			e = g.pickCol(s.cols).ref()
		} else {
			it := items[g.r.IntN(len(items))]
			if it.Alias != "" {
				e = &sqlast.ColumnRef{Column: it.Alias}
			} else {
				e = it.Expr
			}
		}
		out = append(out, sqlast.OrderItem{Expr: e, Desc: g.chance(0.3)})
	}
	return out
}

func (g *Generator) limit(order []sqlast.OrderItem) *int {
	if len(order) == 0 || !g.chance(0.3) {
		return nil
	}
	n := 1 + g.r.IntN(3)
	return &n
}

func (g *Generator) simpleSelect() *sqlast.SelectStmt {
	t := g.table()
	qual := ""
	if g.chance(0.2) {
		qual = t.Name
	}
	s := &scope{cols: tableScope(t, qual)}
	sel := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Table{Name: t.Name}}}
	if g.chance(0.35) {
		sel.Items = []sqlast.SelectItem{{Star: true}}
	} else {
		sel.Items = g.items(s)
	}
	sel.Distinct = g.chance(0.1)
	if g.chance(0.8) {
		sel.Where = g.pred(s, 2)
	}
	st := &sqlast.SelectStmt{Query: sel, OrderBy: g.orderBy(s, sel.Items, sel.Distinct)}
	st.Limit = g.limit(st.OrderBy)
	if !sel.Distinct {
		st.Lock = g.lock()
	}
	if st.Lock != sqlast.LockNone {
		st.Wait = g.waitPolicy()
	}
	return st
}

func (g *Generator) joinSelect() *sqlast.SelectStmt {
	idx := g.r.Perm(len(g.schema.Tables))
	a, b := g.schema.Tables[idx[0]], g.schema.Tables[idx[1]]
	s := &scope{cols: append(tableScope(a, a.Name), tableScope(b, b.Name)...)}
	j := &sqlast.Join{Left: &sqlast.Table{Name: a.Name}, Right: &sqlast.Table{Name: b.Name}}
	switch p := g.r.Float64(); {
	case p < 0.5:
		j.Kind = "JOIN"
	case p < 0.8:
		j.Kind = "LEFT JOIN"
	default:
		j.Kind = "CROSS JOIN"
	}
	if j.Kind != "CROSS JOIN" {
		j.On = g.joinOn(a, b)
	}
	sel := &sqlast.Select{From: []sqlast.TableRef{j}}
	switch p := g.r.Float64(); {
	case p < 0.25:
		sel.Items = []sqlast.SelectItem{{Star: true}}
	case p < 0.4:
		sel.Items = []sqlast.SelectItem{{Star: true, Table: []string{a.Name, b.Name}[g.r.IntN(2)]}}
	default:
		sel.Items = g.items(s)
	}
	if g.chance(0.7) {
		sel.Where = g.pred(s, 1)
	}
	st := &sqlast.SelectStmt{Query: sel, OrderBy: g.orderBy(s, sel.Items, false)}
	st.Limit = g.limit(st.OrderBy)
	// PostgreSQL refuses to lock the nullable side of an outer join.
	if j.Kind != "LEFT JOIN" {
		st.Lock = g.lock()
	}
	return st
}

// joinOn equates a column of a with a column of b of the same category, or
// falls back to a predicate over a alone.
func (g *Generator) joinOn(a, b *TableInfo) sqlast.Expr {
	type pair struct{ x, y *ColumnInfo }
	var pairs []pair
	for _, x := range a.Columns {
		for _, y := range b.Columns {
			if categoryOf(x.Type) == categoryOf(y.Type) {
				pairs = append(pairs, pair{x, y})
			}
		}
	}
	if len(pairs) == 0 {
		return g.pred(&scope{cols: tableScope(a, a.Name), noSub: true}, 0)
	}
	p := pairs[g.r.IntN(len(pairs))]
	return &sqlast.Binary{Op: "=", L: &sqlast.ColumnRef{Table: a.Name, Column: p.x.Name}, R: &sqlast.ColumnRef{Table: b.Name, Column: p.y.Name}}
}

// derivedSelect reads from (SELECT ... FROM t WHERE ...) AS s0. Items of the
// derived table all get distinct aliases so the outer query can name them.
func (g *Generator) derivedSelect() *sqlast.SelectStmt {
	t := g.table()
	in := &scope{cols: tableScope(t, "")}
	inner := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Table{Name: t.Name}}}
	var outer []scopeCol
	n := 1 + g.r.IntN(len(t.Columns))
	for i := range n {
		alias := fmt.Sprintf("a%d", i)
		var e sqlast.Expr
		var typ sqlast.Type
		var src *ColumnInfo
		if g.chance(0.7) {
			c := g.pickCol(in.cols)
			e, typ, src = c.ref(), c.Type, c.Src
		} else {
			want := g.pickCol(in.cols).Type
			if categoryOf(want) == catNum {
				want = sqlast.TypeDouble
			}
			e, typ = g.value(in, want, 1)
		}
		inner.Items = append(inner.Items, sqlast.SelectItem{Expr: e, Alias: alias})
		outer = append(outer, scopeCol{Qual: "s0", Name: alias, Type: typ, Src: src, From: "s0"})
	}
	if g.chance(0.6) {
		inner.Where = g.pred(in, 1)
	}
	s := &scope{cols: outer}
	sel := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Subquery{Query: inner, Alias: "s0"}}}
	if g.chance(0.5) {
		sel.Items = []sqlast.SelectItem{{Star: true}}
	} else {
		for _, c := range s.cols {
			if g.chance(0.7) {
				sel.Items = append(sel.Items, sqlast.SelectItem{Expr: c.ref()})
			}
		}
		if len(sel.Items) == 0 {
			sel.Items = []sqlast.SelectItem{{Expr: s.cols[0].ref()}}
		}
	}
	if g.chance(0.6) {
		sel.Where = g.pred(s, 1)
	}
	st := &sqlast.SelectStmt{Query: sel, OrderBy: g.orderBy(s, sel.Items, false)}
	st.Limit = g.limit(st.OrderBy)
	return st
}

// unionSelect returns SELECT ... UNION [ALL] SELECT ... with the same number
// of columns and the same category per column on both sides; ORDER BY names
// the left side's aliases, the only form every dialect accepts.
func (g *Generator) unionSelect() *sqlast.SelectStmt {
	a, b := g.table(), g.table()
	sa := &scope{cols: tableScope(a, "")}
	sb := &scope{cols: tableScope(b, "")}
	n := 1 + g.r.IntN(2)
	left := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Table{Name: a.Name}}}
	right := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Table{Name: b.Name}}}
	var aliases []string
	for i := range n {
		c := g.pickCol(sa.cols)
		alias := fmt.Sprintf("a%d", i)
		aliases = append(aliases, alias)
		left.Items = append(left.Items, sqlast.SelectItem{Expr: c.ref(), Alias: alias})
		want := c.Type
		if categoryOf(want) == catNum {
			want = sqlast.TypeDouble
		}
		var e sqlast.Expr
		if m := sb.colsFor(want); len(m) > 0 && g.chance(0.85) {
			e = g.pickCol(m).ref()
		} else {
			e = g.constOfType(c.Type, c.Src).Literal()
		}
		right.Items = append(right.Items, sqlast.SelectItem{Expr: e})
	}
	if g.chance(0.7) {
		left.Where = g.pred(sa, 1)
	}
	if g.chance(0.7) {
		right.Where = g.pred(sb, 1)
	}
	op := "UNION"
	if g.chance(0.4) {
		op = "UNION ALL"
	}
	st := &sqlast.SelectStmt{Query: &sqlast.SetOp{Op: op, Left: left, Right: right}}
	if g.chance(0.4) {
		st.OrderBy = []sqlast.OrderItem{{Expr: &sqlast.ColumnRef{Column: aliases[g.r.IntN(len(aliases))]}, Desc: g.chance(0.3)}}
	}
	return st
}

// aggregateSelect returns SELECT COUNT(*), MAX(c), ... FROM t [WHERE ...].
// Aggregates are never mixed with plain columns (there is no GROUP BY) and
// never locked.
func (g *Generator) aggregateSelect() *sqlast.SelectStmt {
	t := g.table()
	s := &scope{cols: tableScope(t, "")}
	sel := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Table{Name: t.Name}}}
	n := 1 + g.r.IntN(3)
	for i := range n {
		c := g.pickCol(s.cols)
		var f *sqlast.Func
		switch p := g.r.Float64(); {
		case p < 0.3:
			f = &sqlast.Func{Name: "COUNT", Star: true}
		case p < 0.45:
			f = &sqlast.Func{Name: "COUNT", Args: []sqlast.Expr{c.ref()}}
		case p < 0.65 && categoryOf(c.Type) == catNum:
			f = &sqlast.Func{Name: "SUM", Args: []sqlast.Expr{c.ref()}}
		case c.Type != sqlast.TypeBool:
			f = &sqlast.Func{Name: []string{"MIN", "MAX"}[g.r.IntN(2)], Args: []sqlast.Expr{c.ref()}}
		default:
			f = &sqlast.Func{Name: "COUNT", Args: []sqlast.Expr{c.ref()}}
		}
		sel.Items = append(sel.Items, sqlast.SelectItem{Expr: f, Alias: fmt.Sprintf("a%d", i)})
	}
	if g.chance(0.7) {
		sel.Where = g.pred(s, 1)
	}
	return &sqlast.SelectStmt{Query: sel}
}

// Insert returns an INSERT into t: plain VALUES, INSERT … SELECT, an upsert
// (ON CONFLICT / ON DUPLICATE KEY UPDATE) or REPLACE, as the dialect allows.
func (g *Generator) Insert(t *TableInfo) *sqlast.Insert {
	keys := t.KeySets()
	switch p := g.r.Float64(); {
	case p < 0.15 && len(keys) > 0:
		// Format renders the upsert on every dialect (ON DUPLICATE KEY
		// UPDATE on the MySQL family, which ignores the conflict target).
		targets := g.upsertTargets(t, keys) // the primary key stays among them
		return g.upsert(t, targets[g.r.IntN(len(targets))])
	case p < 0.25 && len(keys) > 0 && g.cfg.Dialect.SupportsReplace():
		ins := g.insertValues(t, 1+g.r.IntN(2))
		ins.Replace = true
		return ins
	case p < 0.35:
		return g.insertSelect(t)
	}
	return g.insertValues(t, 1+g.r.IntN(3))
}

// insertColumns picks the column list: all columns (named or implied) or a
// subset that still names every NOT NULL column without a default.
func (g *Generator) insertColumns(t *TableInfo) (named bool, cols []*ColumnInfo) {
	switch p := g.r.Float64(); {
	case p < 0.2:
		return false, t.Columns
	case p < 0.75:
		return true, t.Columns
	}
	for _, c := range t.Columns {
		if c.required() || t.isKey(c.Name) || g.chance(0.5) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		cols = t.Columns[:1]
	}
	return true, cols
}

// rowValue draws the value of column c in a generated row. Key columns
// take a seen value now and then, to provoke duplicate keys and upsert
// conflicts; other values mostly satisfy the constraints.
func (g *Generator) rowValue(t *TableInfo, c *ColumnInfo) Value {
	if !c.NotNull && g.chance(0.1) {
		return Value{Null: true, Type: c.Type}
	}
	if v, ok := g.refValue(c); ok {
		c.see(v)
		return v
	}
	v := g.freshFor(c)
	if t.isKey(c.Name) {
		if len(c.Seen) > 0 && g.chance(0.3) {
			v = c.Seen[g.r.IntN(len(c.Seen))]
		}
	} else {
		v = g.constFor(c)
	}
	c.see(v)
	return v
}

func (g *Generator) insertValues(t *TableInfo, rows int) *sqlast.Insert {
	named, cols := g.insertColumns(t)
	named, cols = g.leaveToDBMS(t, named, cols)
	ins := &sqlast.Insert{Table: t.Name}
	if named {
		for _, c := range cols {
			ins.Columns = append(ins.Columns, c.Name)
		}
	}
	for range rows {
		var row []sqlast.Expr
		for _, c := range cols {
			row = append(row, g.keyValue(t, c))
		}
		ins.Values = append(ins.Values, row)
	}
	return ins
}

// upsertTargets are the key sets of t an upsert may name as its conflict
// target. SQLite matches no UNIQUE index that holds the table's INTEGER
// PRIMARY KEY (the rowid alias an AUTOINCREMENT column is) beside other
// columns: "ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE
// constraint" (3.54; sqlite.org forum, upsert on a composite UNIQUE with
// the rowid), so such a set is left out there.
func (g *Generator) upsertTargets(t *TableInfo, keys [][]string) [][]string {
	if g.cfg.Dialect != sqlast.SQLite || t.Auto == "" {
		return keys
	}
	var out [][]string
	for _, k := range keys {
		if len(k) == 1 || !slices.Contains(k, t.Auto) {
			out = append(out, k)
		}
	}
	return out
}

// upsert inserts one row (several rows could hit the same key twice, which
// PostgreSQL rejects) with a conflict target that is a key of t.
func (g *Generator) upsert(t *TableInfo, key []string) *sqlast.Insert {
	ins := g.insertValues(t, 1)
	if ins.Columns == nil {
		ins.Columns = columnNames(t)
	}
	// The conflict target's columns must be in the row for a conflict to be
	// possible at all.
	for _, k := range key {
		found := false
		for _, c := range ins.Columns {
			found = found || c == k
		}
		if !found {
			return g.upsert(t, key) // redraw; key columns are named with probability ≥ 1/2
		}
	}
	oc := &sqlast.OnConflict{Columns: key}
	var others []*ColumnInfo
	for _, c := range t.Columns {
		if !t.isKey(c.Name) {
			others = append(others, c)
		}
	}
	if len(others) == 0 || g.chance(0.3) {
		oc.DoNothing = true
		ins.OnConflict = oc
		return ins
	}
	// The existing row's columns are qualified by the table name: unambiguous
	// next to EXCLUDED on every dialect.
	s := &scope{cols: tableScope(t, t.Name), avoid: t.Name, noSub: true}
	for _, i := range g.r.Perm(len(others))[:1+g.r.IntN(len(others))] {
		c := others[i]
		var e sqlast.Expr
		switch p := g.r.Float64(); {
		case p < 0.4:
			e = &sqlast.Excluded{Column: c.Name}
		case p < 0.6 && categoryOf(c.Type) == catNum:
			k := g.freshValue(sqlast.TypeInt)
			k.Num = float64(1 + g.r.IntN(5))
			e = &sqlast.Binary{Op: "+", L: &sqlast.ColumnRef{Table: t.Name, Column: c.Name}, R: k.Literal()}
		default:
			e = g.setValue(s, c)
		}
		oc.Set = append(oc.Set, sqlast.Assignment{Column: c.Name, Value: e})
	}
	ins.OnConflict = oc
	return ins
}

// insertSelect copies rows of some table into t, converting nothing: each
// target column gets a source column or constant of an assignable type.
func (g *Generator) insertSelect(t *TableInfo) *sqlast.Insert {
	src := g.table()
	s := &scope{cols: tableScope(src, "")}
	_, cols := g.insertColumns(t)
	ins := &sqlast.Insert{Table: t.Name}
	sel := &sqlast.Select{From: []sqlast.TableRef{&sqlast.Table{Name: src.Name}}}
	for _, c := range cols {
		ins.Columns = append(ins.Columns, c.Name)
		var e sqlast.Expr
		if m := s.colsFor(c.Type); len(m) > 0 && g.chance(0.7) {
			e = g.pickCol(m).ref()
		} else {
			v := g.freshFor(c)
			c.see(v)
			e = v.Literal()
		}
		sel.Items = append(sel.Items, sqlast.SelectItem{Expr: e})
	}
	sel.Where = g.pred(s, 1)
	ins.Select = sel
	return ins
}

// setValue returns a new value for column c of an UPDATE: a constant, the
// column shifted by a small number, another column, a function of it or a
// scalar subquery. Multiplication is left out so repeated updates cannot
// overflow.
func (g *Generator) setValue(s *scope, c *ColumnInfo) sqlast.Expr {
	self := &sqlast.ColumnRef{Column: c.Name}
	for _, sc := range s.cols {
		if sc.Name == c.Name {
			self = sc.ref()
		}
	}
	switch p := g.r.Float64(); {
	case p < 0.05 && !c.NotNull:
		return &sqlast.Literal{Kind: sqlast.LitNull, Text: "NULL"}
	case p < 0.5:
		v := g.constFor(c)
		c.see(v)
		return v.Literal()
	case p < 0.75:
		switch categoryOf(c.Type) {
		case catNum:
			k := Value{Type: sqlast.TypeInt, Num: float64(1 + g.r.IntN(5))}
			if c.Type != sqlast.TypeInt && g.chance(0.3) {
				k = Value{Type: sqlast.TypeDecimal, Num: float64(1+g.r.IntN(20)) / 4}
			}
			return &sqlast.Binary{Op: []string{"+", "-"}[g.r.IntN(2)], L: self, R: k.Literal()}
		case catText:
			return &sqlast.Func{Name: []string{"UPPER", "LOWER"}[g.r.IntN(2)], Args: []sqlast.Expr{self}}
		default:
			return &sqlast.Unary{Op: "NOT", X: self}
		}
	case p < 0.85:
		if m := s.colsFor(c.Type); len(m) > 0 {
			return g.pickCol(m).ref()
		}
	case p < 0.92:
		d := g.freshFor(c)
		return &sqlast.Func{Name: "COALESCE", Args: []sqlast.Expr{self, d.Literal()}}
	default:
		if e, _, ok := g.scalarSub(s, c.Type); ok {
			return e
		}
	}
	v := g.constFor(c)
	return v.Literal()
}

// Update returns UPDATE t SET 1–2 columns [WHERE ...]. Subqueries never
// read t itself (MySQL error 1093).
func (g *Generator) Update(t *TableInfo) *sqlast.Update {
	s := &scope{cols: tableScope(t, ""), avoid: t.Name}
	up := &sqlast.Update{Table: t.Name}
	n := 1
	if len(t.Columns) > 1 && g.chance(0.3) {
		n = 2
	}
	for _, i := range g.r.Perm(len(t.Columns))[:n] {
		c := t.Columns[i]
		up.Set = append(up.Set, sqlast.Assignment{Column: c.Name, Value: g.setValue(s, c)})
	}
	if g.chance(0.9) {
		up.Where = g.pred(s, 2)
	}
	return up
}

// Delete returns DELETE FROM t [WHERE ...], subqueries avoiding t.
func (g *Generator) Delete(t *TableInfo) *sqlast.Delete {
	s := &scope{cols: tableScope(t, ""), avoid: t.Name}
	d := &sqlast.Delete{Table: t.Name}
	if g.chance(0.92) {
		d.Where = g.pred(s, 2)
	}
	return d
}

// Predicate returns a WHERE condition over t's columns (unqualified), safe
// in an UPDATE or DELETE of t: its subqueries never read t.
func (g *Generator) Predicate(t *TableInfo) sqlast.Expr {
	return g.pred(&scope{cols: tableScope(t, ""), avoid: t.Name}, 2)
}

package gen

import (
	"github.com/txlab/txlab/sqlast"
)

// scopeCol is a column visible to an expression.
type scopeCol struct {
	Qual string // qualifier to write ("" = unqualified)
	Name string
	Type sqlast.Type
	Src  *ColumnInfo // the stored column behind it, for constants; nil if computed
	// From is the FROM item the column belongs to (table name or derived
	// table alias): a correlated subquery qualifies the column with it.
	From string
}

func (c scopeCol) ref() *sqlast.ColumnRef { return &sqlast.ColumnRef{Table: c.Qual, Column: c.Name} }

// scope is what an expression may refer to.
type scope struct {
	cols []scopeCol
	// avoid is a table subqueries must not read: the target of an UPDATE or
	// DELETE, which MySQL rejects (error 1093) when read in a subquery.
	avoid string
	// noSub forbids further subqueries, bounding nesting at one level.
	noSub bool
}

func tableScope(t *TableInfo, qual string) []scopeCol {
	out := make([]scopeCol, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = scopeCol{Qual: qual, Name: c.Name, Type: c.Type, Src: c, From: t.Name}
	}
	// Generated columns are read like any other, never written.
	for _, c := range t.Generated {
		out = append(out, scopeCol{Qual: qual, Name: c.Name, Type: c.Type, Src: c, From: t.Name})
	}
	return out
}

// colsFor returns the scope columns whose values fit an expression wanted
// as type want (see assignable).
func (s *scope) colsFor(want sqlast.Type) []scopeCol {
	var out []scopeCol
	for _, c := range s.cols {
		if assignable(c.Type, want) {
			out = append(out, c)
		}
	}
	return out
}

func (g *Generator) pickCol(cols []scopeCol) scopeCol { return cols[g.r.IntN(len(cols))] }

// subTables are the tables a subquery of s may read.
func (g *Generator) subTables(s *scope) []*TableInfo {
	if s.noSub {
		return nil
	}
	var out []*TableInfo
	for _, t := range g.schema.Tables {
		if t.Name != s.avoid {
			out = append(out, t)
		}
	}
	return out
}

// subScope is the scope inside a subquery reading t: its columns only,
// unqualified (they resolve to the innermost FROM), and no deeper nesting.
func subScope(t *TableInfo) *scope {
	return &scope{cols: tableScope(t, ""), noSub: true}
}

// value returns an expression whose type is assignable to want, and that
// type. depth bounds nesting.
func (g *Generator) value(s *scope, want sqlast.Type, depth int) (sqlast.Expr, sqlast.Type) {
	cols := s.colsFor(want)
	p := g.r.Float64()
	switch {
	case len(cols) > 0 && p < 0.45:
		c := g.pickCol(cols)
		return c.ref(), c.Type
	case p < 0.65 || depth <= 0:
		var src *ColumnInfo
		t := want
		if want == sqlast.TypeDouble && g.chance(0.5) {
			t = sqlast.TypeInt // any number will do
		}
		if len(cols) > 0 {
			c := g.pickCol(cols)
			src, t = c.Src, c.Type
		}
		v := g.constOfType(t, src)
		return v.Literal(), t
	case p < 0.8:
		return g.funcValue(s, want, depth-1)
	case p < 0.9 && categoryOf(want) == catNum:
		l, lt := g.value(s, want, depth-1)
		r, rt := g.value(s, want, depth-1)
		op := []string{"+", "-", "*"}[g.r.IntN(3)]
		return &sqlast.Binary{Op: op, L: l, R: r}, arithType(lt, rt)
	default:
		if e, t, ok := g.scalarSub(s, want); ok {
			return e, t
		}
		return g.value(s, want, 0)
	}
}

// arithType is the type of l op r for + - *.
func arithType(l, r sqlast.Type) sqlast.Type {
	switch {
	case l == sqlast.TypeInt && r == sqlast.TypeInt:
		return sqlast.TypeInt
	case l == sqlast.TypeDouble || r == sqlast.TypeDouble:
		return sqlast.TypeDouble
	}
	return sqlast.TypeDecimal
}

// funcValue returns a deterministic function call of the wanted type.
func (g *Generator) funcValue(s *scope, want sqlast.Type, depth int) (sqlast.Expr, sqlast.Type) {
	switch categoryOf(want) {
	case catNum:
		if want == sqlast.TypeInt && g.chance(0.25) {
			if tc := s.colsFor(sqlast.TypeVarchar); len(tc) > 0 {
				// LENGTH of the short ASCII strings is the same everywhere.
				return &sqlast.Func{Name: "LENGTH", Args: []sqlast.Expr{g.pickCol(tc).ref()}}, sqlast.TypeInt
			}
		}
		x, t := g.value(s, want, depth)
		if g.chance(0.5) {
			return &sqlast.Func{Name: "ABS", Args: []sqlast.Expr{x}}, t
		}
		d := g.constOfType(t, nil)
		return &sqlast.Func{Name: "COALESCE", Args: []sqlast.Expr{x, d.Literal()}}, t
	case catText:
		x, t := g.value(s, want, depth)
		switch g.r.IntN(3) {
		case 0:
			return &sqlast.Func{Name: "UPPER", Args: []sqlast.Expr{x}}, t
		case 1:
			return &sqlast.Func{Name: "LOWER", Args: []sqlast.Expr{x}}, t
		}
		d := g.freshValue(sqlast.TypeVarchar)
		return &sqlast.Func{Name: "COALESCE", Args: []sqlast.Expr{x, d.Literal()}}, t
	default:
		x, t := g.value(s, want, depth)
		d := g.freshValue(sqlast.TypeBool)
		return &sqlast.Func{Name: "COALESCE", Args: []sqlast.Expr{x, d.Literal()}}, t
	}
}

// scalarSub returns (SELECT MAX|MIN(c) FROM t [WHERE p]): an aggregate
// guarantees exactly one row. Booleans have no MAX on PostgreSQL.
func (g *Generator) scalarSub(s *scope, want sqlast.Type) (sqlast.Expr, sqlast.Type, bool) {
	if categoryOf(want) == catBool {
		return nil, 0, false
	}
	type cand struct {
		t *TableInfo
		c *ColumnInfo
	}
	var cands []cand
	for _, t := range g.subTables(s) {
		for _, c := range t.Columns {
			if assignable(c.Type, want) {
				cands = append(cands, cand{t, c})
			}
		}
	}
	if len(cands) == 0 {
		return nil, 0, false
	}
	k := cands[g.r.IntN(len(cands))]
	fn := "MAX"
	if g.chance(0.5) {
		fn = "MIN"
	}
	sel := &sqlast.Select{
		Items: []sqlast.SelectItem{{Expr: &sqlast.Func{Name: fn, Args: []sqlast.Expr{&sqlast.ColumnRef{Column: k.c.Name}}}}},
		From:  []sqlast.TableRef{&sqlast.Table{Name: k.t.Name}},
	}
	if g.chance(0.5) {
		sel.Where = g.pred(subScope(k.t), 0)
	}
	return &sqlast.ScalarSubquery{Sub: sel}, k.c.Type, true
}

var cmpOps = []string{"=", "<>", "<", "<=", ">", ">="}

// pred returns a boolean expression over s. depth bounds AND/OR/NOT nesting.
func (g *Generator) pred(s *scope, depth int) sqlast.Expr {
	if depth > 0 {
		switch p := g.r.Float64(); {
		case p < 0.2:
			return &sqlast.Binary{Op: "AND", L: g.pred(s, depth-1), R: g.pred(s, depth-1)}
		case p < 0.32:
			return &sqlast.Binary{Op: "OR", L: g.pred(s, depth-1), R: g.pred(s, depth-1)}
		case p < 0.38:
			return &sqlast.Unary{Op: "NOT", X: g.pred(s, depth-1)}
		}
	}
	return g.atom(s)
}

// atom returns a predicate without AND/OR/NOT at the top.
func (g *Generator) atom(s *scope) sqlast.Expr {
	c := g.pickCol(s.cols)
	cat := categoryOf(c.Type)
	konst := func() sqlast.Expr { return g.constOfType(c.Type, c.Src).Literal() }
	subs := g.subTables(s)
	switch p := g.r.Float64(); {
	case p < 0.45:
		return g.comparison(s, c)
	case p < 0.55:
		return &sqlast.IsNull{X: c.ref(), Not: g.chance(0.5)}
	case p < 0.65 && cat != catBool:
		lo, hi := g.constOfType(c.Type, c.Src), g.constOfType(c.Type, c.Src)
		if g.chance(0.8) && lo.compare(hi) > 0 {
			lo, hi = hi, lo
		}
		return &sqlast.Between{X: c.ref(), Lo: lo.Literal(), Hi: hi.Literal(), Not: g.chance(0.2)}
	case p < 0.75:
		n := 1 + g.r.IntN(3)
		list := make([]sqlast.Expr, n)
		for i := range list {
			list[i] = konst()
		}
		return &sqlast.In{X: c.ref(), List: list, Not: g.chance(0.2)}
	case p < 0.87 && len(subs) > 0:
		t := subs[g.r.IntN(len(subs))]
		in := subScope(t)
		var match []scopeCol
		for _, ic := range in.cols {
			if categoryOf(ic.Type) == cat {
				match = append(match, ic)
			}
		}
		if len(match) == 0 {
			break
		}
		sel := &sqlast.Select{
			Items: []sqlast.SelectItem{{Expr: g.pickCol(match).ref()}},
			From:  []sqlast.TableRef{&sqlast.Table{Name: t.Name}},
		}
		if g.chance(0.6) {
			sel.Where = g.pred(in, 1)
		}
		return &sqlast.In{X: c.ref(), Sub: sel, Not: g.chance(0.2)}
	case p < 0.95 && len(subs) > 0:
		t := subs[g.r.IntN(len(subs))]
		sel := &sqlast.Select{
			Items: []sqlast.SelectItem{{Star: true}},
			From:  []sqlast.TableRef{&sqlast.Table{Name: t.Name}},
			Where: g.pred(subScope(t), 1),
		}
		if corr := g.correlation(c, t); corr != nil && g.chance(0.6) {
			sel.Where = &sqlast.Binary{Op: "AND", L: corr, R: sel.Where}
		}
		return &sqlast.Exists{Sub: sel, Not: g.chance(0.3)}
	}
	return g.comparison(s, c)
}

// comparison returns c (or an expression over it) compared with a constant,
// another column or a scalar subquery of the same category.
func (g *Generator) comparison(s *scope, c scopeCol) sqlast.Expr {
	switch categoryOf(c.Type) {
	case catBool:
		switch g.r.IntN(3) {
		case 0:
			return c.ref()
		case 1:
			return &sqlast.Unary{Op: "NOT", X: c.ref()}
		}
		return &sqlast.Binary{Op: []string{"=", "<>"}[g.r.IntN(2)], L: c.ref(), R: g.freshValue(sqlast.TypeBool).Literal()}
	case catText:
		var l sqlast.Expr = c.ref()
		if g.chance(0.15) {
			l = &sqlast.Func{Name: []string{"UPPER", "LOWER"}[g.r.IntN(2)], Args: []sqlast.Expr{l}}
		}
		return &sqlast.Binary{Op: cmpOps[g.r.IntN(len(cmpOps))], L: l, R: g.rhs(s, c)}
	}
	var l sqlast.Expr = c.ref()
	switch p := g.r.Float64(); {
	case p < 0.15:
		k := g.freshValue(sqlast.TypeInt)
		l = &sqlast.Binary{Op: []string{"+", "-", "*"}[g.r.IntN(3)], L: l, R: k.Literal()}
	case p < 0.25:
		if nc := s.colsFor(sqlast.TypeDouble); len(nc) > 1 {
			l = &sqlast.Binary{Op: []string{"+", "-", "*"}[g.r.IntN(3)], L: l, R: g.pickCol(nc).ref()}
		}
	case p < 0.3:
		l = &sqlast.Func{Name: "ABS", Args: []sqlast.Expr{l}}
	}
	return &sqlast.Binary{Op: cmpOps[g.r.IntN(len(cmpOps))], L: l, R: g.rhs(s, c)}
}

// rhs is the right-hand side of a comparison with column c.
func (g *Generator) rhs(s *scope, c scopeCol) sqlast.Expr {
	want := c.Type
	if categoryOf(want) == catNum {
		want = sqlast.TypeDouble // any number
	}
	switch p := g.r.Float64(); {
	case p < 0.15:
		var others []scopeCol
		for _, o := range s.colsFor(want) {
			if o != c {
				others = append(others, o)
			}
		}
		if len(others) > 0 {
			return g.pickCol(others).ref()
		}
	case p < 0.25:
		if e, _, ok := g.scalarSub(s, want); ok {
			return e
		}
	}
	return g.constOfType(c.Type, c.Src).Literal()
}

// correlation returns inner.x = outer.c, tying a subquery reading inner to
// the current row of the outer column c, or nil when no column of inner has
// c's category or the names would clash (inner is c's own table, whose name
// inside the subquery means the inner one).
func (g *Generator) correlation(c scopeCol, inner *TableInfo) sqlast.Expr {
	if c.From == "" || c.From == inner.Name {
		return nil
	}
	var match []*ColumnInfo
	for _, ic := range inner.Columns {
		if categoryOf(ic.Type) == categoryOf(c.Type) {
			match = append(match, ic)
		}
	}
	if len(match) == 0 {
		return nil
	}
	x := match[g.r.IntN(len(match))]
	return &sqlast.Binary{
		Op: "=",
		L:  &sqlast.ColumnRef{Table: inner.Name, Column: x.Name},
		R:  &sqlast.ColumnRef{Table: c.From, Column: c.Name},
	}
}

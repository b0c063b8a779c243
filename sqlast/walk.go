package sqlast

import "reflect"

// Walk calls fn for n and, depth-first in source order, for every statement,
// query, table reference and expression below it, always as pointers (the
// types of ast.go). When fn returns false, Walk does not descend into that
// node's children. Column definitions, select items, order items and
// assignments are not nodes: their expressions are visited directly.
func Walk(n any, fn func(n any) bool) {
	if n == nil || isNilNode(n) || !fn(n) {
		return
	}
	walkExprs := func(es []Expr) {
		for _, e := range es {
			Walk(e, fn)
		}
	}
	switch n := n.(type) {
	case *CreateTable:
		for _, c := range n.Columns {
			Walk(c.Default, fn)
			Walk(c.Check, fn)
			if c.Generated != nil {
				Walk(c.Generated.Expr, fn)
			}
		}
		walkExprs(n.Checks)
	case *CreateIndex:
		walkExprs(n.Exprs)
		Walk(n.Where, fn)
	case *Insert:
		for _, row := range n.Values {
			walkExprs(row)
		}
		Walk(n.Select, fn)
		if n.OnConflict != nil {
			for _, a := range n.OnConflict.Set {
				Walk(a.Value, fn)
			}
		}
		for _, it := range n.Returning {
			Walk(it.Expr, fn)
		}
	case *Update:
		walkRefs(n.Tables, fn)
		for _, a := range n.Set {
			Walk(a.Value, fn)
		}
		walkRefs(n.From, fn)
		Walk(n.Where, fn)
		for _, it := range n.Returning {
			Walk(it.Expr, fn)
		}
	case *Delete:
		walkRefs(n.Tables, fn)
		walkRefs(n.Using, fn)
		Walk(n.Where, fn)
		for _, it := range n.Returning {
			Walk(it.Expr, fn)
		}
	case *Merge, *With:
		walkMulti(n, fn)
	case *SelectStmt:
		Walk(n.Query, fn)
		for _, o := range n.OrderBy {
			Walk(o.Expr, fn)
		}
	case *Select:
		for _, it := range n.Items {
			Walk(it.Expr, fn)
		}
		for _, t := range n.From {
			Walk(t, fn)
		}
		Walk(n.Where, fn)
	case *SetOp:
		Walk(n.Left, fn)
		Walk(n.Right, fn)
	case *Subquery:
		Walk(n.Query, fn)
	case *Join:
		Walk(n.Left, fn)
		Walk(n.Right, fn)
		Walk(n.On, fn)
	case *Binary:
		Walk(n.L, fn)
		Walk(n.R, fn)
	case *Unary:
		Walk(n.X, fn)
	case *IsNull:
		Walk(n.X, fn)
	case *Between:
		Walk(n.X, fn)
		Walk(n.Lo, fn)
		Walk(n.Hi, fn)
	case *In:
		Walk(n.X, fn)
		walkExprs(n.List)
		Walk(n.Sub, fn)
	case *Exists:
		Walk(n.Sub, fn)
	case *ScalarSubquery:
		Walk(n.Sub, fn)
	case *Func:
		walkExprs(n.Args)
	case *Concat:
		Walk(n.L, fn)
		Walk(n.R, fn)
	case *Var:
		Walk(n.Assign, fn)
	case *Case:
		Walk(n.Operand, fn)
		for _, w := range n.Whens {
			Walk(w.Cond, fn)
			Walk(w.Result, fn)
		}
		Walk(n.Else, fn)
	}
}

// isNilNode reports whether n is a typed nil pointer inside an interface,
// which a hand-built AST may carry (e.g. Where: (*Binary)(nil)).
func isNilNode(n any) bool {
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

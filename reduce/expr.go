package reduce

import (
	"reflect"

	"github.com/txlab/txlab/sqlast"
)

var exprType = reflect.TypeFor[sqlast.Expr]()

// simplifications lists the expression simplifications statement s offers,
// in source order, each as a function that applies it to s in place: a
// WHERE clause removed, an AND or OR replaced by its left or right side.
func simplifications(s sqlast.Stmt) []func() {
	var out []func()
	sqlast.Walk(s, func(n any) bool {
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return true
		}
		v = v.Elem()
		for i := range v.NumField() {
			field := v.Field(i)
			if field.Type() != exprType || field.IsNil() || !field.CanSet() {
				continue
			}
			if v.Type().Field(i).Name == "Where" {
				out = append(out, func() { field.Set(reflect.Zero(exprType)) })
			}
			if b, ok := field.Interface().(*sqlast.Binary); ok && (b.Op == "AND" || b.Op == "OR") {
				out = append(out,
					func() { field.Set(reflect.ValueOf(b.L)) },
					func() { field.Set(reflect.ValueOf(b.R)) })
			}
		}
		return true
	})
	return out
}

// literalSimplifications lists, in source order, the literal values of
// statement s that can become simpler ones: a number 0 or 1, a string 'a'.
func literalSimplifications(s sqlast.Stmt) []func() {
	var out []func()
	sqlast.Walk(s, func(n any) bool {
		lit, ok := n.(*sqlast.Literal)
		if !ok {
			return true
		}
		// Only ever towards simpler (0 before 1 before anything else), so
		// that kept candidates cannot take turns for ever.
		var simpler []string
		switch {
		case (lit.Kind == sqlast.LitInt || lit.Kind == sqlast.LitFloat) && lit.Text == "1":
			simpler = []string{"0"}
		case (lit.Kind == sqlast.LitInt || lit.Kind == sqlast.LitFloat) && lit.Text != "0":
			simpler = []string{"0", "1"}
		case lit.Kind == sqlast.LitString && lit.Text != "" && lit.Text != "a":
			simpler = []string{"a"}
		}
		for _, v := range simpler {
			out = append(out, func() { lit.Text = v })
		}
		return true
	})
	return out
}

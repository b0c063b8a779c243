package gen

import (
	"strconv"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// Value is a constant the generator knows the meaning of, so it can check
// constraints and uniqueness before the DBMS sees a row.
//
// Numbers are kept as float64: the generator only produces small integers,
// quarters (DOUBLE, exact in binary) and two-decimal numbers (DECIMAL(10,2)),
// all of which survive the round trip through the three DBMSs unchanged.
type Value struct {
	Null bool
	Type sqlast.Type
	Num  float64 // INT, DOUBLE, DECIMAL; 0 or 1 for BOOL
	Str  string  // VARCHAR
}

// Literal renders v as an AST literal of its type.
func (v Value) Literal() *sqlast.Literal {
	if v.Null {
		return &sqlast.Literal{Kind: sqlast.LitNull, Text: "NULL"}
	}
	switch v.Type {
	case sqlast.TypeInt:
		return &sqlast.Literal{Kind: sqlast.LitInt, Text: strconv.FormatInt(int64(v.Num), 10)}
	case sqlast.TypeDouble, sqlast.TypeDecimal:
		t := strconv.FormatFloat(v.Num, 'f', -1, 64)
		if !strings.Contains(t, ".") {
			// Keep the literal's kind visible in the text (2.0, not 2), so
			// PostgreSQL types it as numeric like every other float literal.
			t += ".0"
		}
		return &sqlast.Literal{Kind: sqlast.LitFloat, Text: t}
	case sqlast.TypeVarchar:
		return &sqlast.Literal{Kind: sqlast.LitString, Text: v.Str}
	case sqlast.TypeBool:
		if v.Num != 0 {
			return &sqlast.Literal{Kind: sqlast.LitBool, Text: "TRUE"}
		}
		return &sqlast.Literal{Kind: sqlast.LitBool, Text: "FALSE"}
	}
	return &sqlast.Literal{Kind: sqlast.LitNull, Text: "NULL"}
}

// key identifies v for uniqueness checks. Strings are lower-cased because
// MariaDB's default collation compares case-insensitively (the generator
// only writes lower-case strings, this is a second line of defence).
func (v Value) key() string {
	switch {
	case v.Null:
		return "\x00null"
	case v.Type == sqlast.TypeVarchar:
		return "s" + strings.ToLower(v.Str)
	default:
		return "n" + strconv.FormatFloat(v.Num, 'g', -1, 64)
	}
}

// compare orders two non-NULL values of the same category (numbers
// numerically, strings bytewise, which agrees with every DBMS for the
// lower-case ASCII strings the generator writes).
func (v Value) compare(o Value) int {
	if v.Type == sqlast.TypeVarchar {
		return strings.Compare(v.Str, o.Str)
	}
	switch {
	case v.Num < o.Num:
		return -1
	case v.Num > o.Num:
		return 1
	}
	return 0
}

// category groups types the way PostgreSQL's type checker does for the
// operators the generator uses: numbers mix freely, text and booleans only
// with themselves.
type category int

const (
	catNum category = iota
	catText
	catBool
)

func categoryOf(t sqlast.Type) category {
	switch t {
	case sqlast.TypeVarchar:
		return catText
	case sqlast.TypeBool:
		return catBool
	}
	return catNum
}

// assignable reports whether an expression of type from may be stored in a
// column of type to without relying on implicit casts: integers only into
// INT, any number into DOUBLE/DECIMAL, text into text, bool into bool.
func assignable(from, to sqlast.Type) bool {
	if to == sqlast.TypeInt {
		return from == sqlast.TypeInt
	}
	return categoryOf(from) == categoryOf(to)
}

// Check is a single-column CHECK constraint: column Op Val, or column
// BETWEEN Val AND Hi. NULL satisfies every check, as in SQL.
type Check struct {
	Op  string // ">=", "<=", "<>" or "BETWEEN"
	Val Value
	Hi  Value
}

// Holds reports whether v satisfies the check.
func (c *Check) Holds(v Value) bool {
	if c == nil || v.Null {
		return true
	}
	switch c.Op {
	case ">=":
		return v.compare(c.Val) >= 0
	case "<=":
		return v.compare(c.Val) <= 0
	case "<>":
		return v.key() != c.Val.key()
	case "BETWEEN":
		return v.compare(c.Val) >= 0 && v.compare(c.Hi) <= 0
	}
	return true
}

// Expr renders the check on column col.
func (c *Check) Expr(col string) sqlast.Expr {
	ref := &sqlast.ColumnRef{Column: col}
	if c.Op == "BETWEEN" {
		return &sqlast.Between{X: ref, Lo: c.Val.Literal(), Hi: c.Hi.Literal()}
	}
	return &sqlast.Binary{Op: c.Op, L: ref, R: c.Val.Literal()}
}

const letters = "abcdefgh"

// freshValue draws a new random value of type t (never NULL).
func (g *Generator) freshValue(t sqlast.Type) Value {
	v := Value{Type: t}
	switch t {
	case sqlast.TypeInt:
		if g.chance(0.8) {
			v.Num = float64(g.r.IntN(31))
		} else {
			v.Num = float64(g.r.IntN(111) - 10)
		}
	case sqlast.TypeDouble:
		v.Num = float64(g.r.IntN(161)-20) / 4
	case sqlast.TypeDecimal:
		v.Num = float64(g.r.IntN(4001)-500) / 100
	case sqlast.TypeVarchar:
		n := 1 + g.r.IntN(3)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[g.r.IntN(len(letters))]
		}
		v.Str = string(b)
	case sqlast.TypeBool:
		v.Num = float64(g.r.IntN(2))
	}
	return v
}

// freshFor draws a new value for column c that satisfies its CHECK.
func (g *Generator) freshFor(c *ColumnInfo) Value {
	for range 20 {
		v := g.freshValue(c.Type)
		if c.Check.Holds(v) {
			return v
		}
	}
	// The check's own bound satisfies >=, <= and BETWEEN; for <> any second
	// draw differs with overwhelming probability, and 20 misses in a row
	// cannot happen for the ranges used.
	return c.Check.Val
}

// constFor returns a constant for comparisons with or assignments to column
// c: often a value already stored in it (so predicates hit rows), otherwise a
// fresh one.
func (g *Generator) constFor(c *ColumnInfo) Value {
	if v, ok := g.refValue(c); ok {
		return v
	}
	if c != nil && len(c.Seen) > 0 && g.chance(0.6) {
		return c.Seen[g.r.IntN(len(c.Seen))]
	}
	if c == nil {
		return g.freshValue(sqlast.TypeInt)
	}
	return g.freshFor(c)
}

// constOfType returns a constant for an expression of type t whose column
// (if any) is src.
func (g *Generator) constOfType(t sqlast.Type, src *ColumnInfo) Value {
	if src != nil && src.Type == t {
		return g.constFor(src)
	}
	return g.freshValue(t)
}

// see records v as a value stored in column c.
func (c *ColumnInfo) see(v Value) {
	if v.Null {
		return
	}
	k := v.key()
	for _, s := range c.Seen {
		if s.key() == k {
			return
		}
	}
	c.Seen = append(c.Seen, v)
}

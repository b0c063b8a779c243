package gen

import (
	"fmt"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// Schema is the generated database schema. The generator keeps it up to
// date with the values written so far, so later statements can aim at them.
type Schema struct {
	Tables []*TableInfo
}

// Table returns the table called name, or nil.
func (s *Schema) Table(name string) *TableInfo {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TableInfo describes one table.
type TableInfo struct {
	Name       string
	Columns    []*ColumnInfo
	PrimaryKey []string   // nil when the table has none
	Uniques    [][]string // UNIQUE constraints and unique indexes besides the primary key
	Indexes    []*sqlast.CreateIndex
	// TableCheck is true when the column checks are written as table-level
	// CHECK constraints rather than on the columns (both forms get tested).
	TableCheck bool
	// ForeignKeys reference earlier tables (fk.go).
	ForeignKeys []*ForeignKeyInfo
	// Schema features (schemafeat.go): generated columns, the key column
	// the DBMS numbers, the sequence that fills the key.
	Generated []*ColumnInfo
	Auto      string
	Seq       string
	// rowKeys are column sets the initial rows keep unique besides
	// KeySets: a partial or expression UNIQUE index's columns.
	rowKeys [][]string
}

// Column returns the column called name, or nil.
func (t *TableInfo) Column(name string) *ColumnInfo {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// KeySets lists the column sets that must be unique: the primary key first,
// then the other unique sets. Each one is a valid ON CONFLICT target.
func (t *TableInfo) KeySets() [][]string {
	var out [][]string
	if t.PrimaryKey != nil {
		out = append(out, t.PrimaryKey)
	}
	return append(out, t.Uniques...)
}

// Keyless reports whether the table has neither a primary key nor a unique set.
func (t *TableInfo) Keyless() bool { return t.PrimaryKey == nil && len(t.Uniques) == 0 }

// isKey reports whether column name belongs to some unique set.
func (t *TableInfo) isKey(name string) bool {
	for _, ks := range t.KeySets() {
		for _, c := range ks {
			if c == name {
				return true
			}
		}
	}
	return false
}

// ColumnInfo describes one user column.
type ColumnInfo struct {
	Name    string
	Type    sqlast.Type
	NotNull bool
	Default *Value // nil: no DEFAULT clause
	Check   *Check // nil: no CHECK
	// Gen is a generated column's definition (TableInfo.Generated only).
	Gen *sqlast.Generated
	// Seen holds the distinct non-NULL values written into the column so far
	// (initial rows and generated INSERT/UPDATE constants), in the order
	// first written.
	Seen []Value
	// Ref is the parent's key column a foreign key of this column
	// references (fk.go); nil when none.
	Ref *ColumnInfo
}

// required reports whether an INSERT must name the column.
func (c *ColumnInfo) required() bool { return c.NotNull && c.Default == nil }

// columnTypes are the types the dialect supports, in a fixed order.
func (g *Generator) columnTypes() []sqlast.Type {
	ts := []sqlast.Type{sqlast.TypeInt, sqlast.TypeInt, sqlast.TypeDouble, sqlast.TypeDecimal, sqlast.TypeVarchar, sqlast.TypeVarchar}
	if g.cfg.Dialect.SupportsBool() {
		ts = append(ts, sqlast.TypeBool)
	}
	return ts
}

// genSchema draws the tables, their columns, keys, checks, defaults and indexes.
func (g *Generator) genSchema() *Schema {
	s := &Schema{}
	n := 1 + g.r.IntN(g.cfg.MaxTables)
	for i := range n {
		t := g.genTable(fmt.Sprintf("t%d", i))
		if g.can("foreign-key") {
			g.foreignKey(s, t)
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

func (g *Generator) genTable(name string) *TableInfo {
	t := &TableInfo{Name: name, TableCheck: g.chance(0.3)}
	types := g.columnTypes()
	ncols := 1 + g.r.IntN(g.cfg.MaxColumns)
	for i := range ncols {
		t.Columns = append(t.Columns, &ColumnInfo{
			Name: fmt.Sprintf("c%d", i),
			Type: types[g.r.IntN(len(types))],
		})
	}
	// Booleans make poor keys (two values), so keys use the other columns.
	var keyable []string
	for _, c := range t.Columns {
		if c.Type != sqlast.TypeBool {
			keyable = append(keyable, c.Name)
		}
	}
	switch p := g.r.Float64(); {
	case p < 0.25 || len(keyable) == 0:
		// keyless: IsoRel and WriteCheck treat these differently
	case p < 0.6:
		t.PrimaryKey = []string{g.pick(keyable)}
	case p < 0.8 && len(keyable) >= 2:
		t.PrimaryKey = g.subset(keyable, 2)
	default:
		// no primary key, maybe a unique set below
	}
	for _, pk := range t.PrimaryKey {
		t.Column(pk).NotNull = true
	}
	if len(keyable) > 0 && g.chance(0.3) {
		u := []string{g.pick(keyable)}
		if len(keyable) >= 2 && g.chance(0.3) {
			u = g.subset(keyable, 2)
		}
		if !sameSet(u, t.PrimaryKey) {
			t.Uniques = append(t.Uniques, u)
		}
	}
	for _, c := range t.Columns {
		if !c.NotNull && g.chance(0.25) {
			c.NotNull = true
		}
		if g.chance(0.25) {
			c.Check = g.genCheck(c.Type)
		}
		if !t.isKey(c.Name) && g.chance(0.25) {
			d := g.freshFor(c)
			c.Default = &d
		}
	}
	nidx := g.r.IntN(3)
	for range nidx {
		cols := []string{g.pick(columnNames(t))}
		if len(t.Columns) >= 2 && g.chance(0.4) {
			cols = g.subset(columnNames(t), 2)
		}
		if sameSet(cols, t.PrimaryKey) || indexedCols(t, cols) {
			continue // an identical index adds nothing
		}
		unique := false
		if g.chance(0.2) && !hasBool(t, cols) && !sameSet(cols, t.PrimaryKey) && !containsSet(t.Uniques, cols) {
			unique = true
			t.Uniques = append(t.Uniques, cols)
		}
		t.Indexes = append(t.Indexes, &sqlast.CreateIndex{
			Name:    fmt.Sprintf("%s_i%d", name, len(t.Indexes)),
			Table:   name,
			Columns: cols,
			Unique:  unique,
		})
	}
	g.schemaFeatures(t)
	return t
}

// genCheck draws a CHECK that most fresh values of type t satisfy, so
// initial rows are easy to find and some generated writes still violate it.
func (g *Generator) genCheck(t sqlast.Type) *Check {
	switch t {
	case sqlast.TypeBool:
		return nil // a check on a boolean column says little
	case sqlast.TypeVarchar:
		switch g.r.IntN(2) {
		case 0:
			return &Check{Op: "<>", Val: g.freshValue(t)}
		default:
			return &Check{Op: ">=", Val: Value{Type: t, Str: "b"}}
		}
	}
	lo := g.freshValue(t)
	lo.Num = 0
	hi := lo
	hi.Num = 25
	switch g.r.IntN(4) {
	case 0:
		return &Check{Op: ">=", Val: lo}
	case 1:
		return &Check{Op: "<=", Val: hi}
	case 2:
		return &Check{Op: "<>", Val: g.freshValue(t)}
	default:
		lo.Num = -5
		hi.Num = 40
		return &Check{Op: "BETWEEN", Val: lo, Hi: hi}
	}
}

// CreateStatements returns CREATE TABLE and CREATE INDEX for every table.
func (s *Schema) CreateStatements() []sqlast.Stmt {
	var out []sqlast.Stmt
	for _, t := range s.Tables {
		ct := &sqlast.CreateTable{Name: t.Name}
		if len(t.PrimaryKey) > 1 {
			ct.PrimaryKey = t.PrimaryKey
		}
		for _, c := range t.Columns {
			cd := sqlast.ColumnDef{Name: c.Name, Type: c.Type, NotNull: c.NotNull}
			if len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == c.Name {
				cd.PrimaryKey = true
			}
			if c.Default != nil {
				cd.Default = c.Default.Literal()
			}
			if c.Check != nil {
				if t.TableCheck {
					ct.Checks = append(ct.Checks, c.Check.Expr(c.Name))
				} else {
					cd.Check = c.Check.Expr(c.Name)
				}
			}
			ct.Columns = append(ct.Columns, cd)
		}
		// Unique sets that come from CREATE UNIQUE INDEX are not repeated
		// as constraints.
		for _, u := range t.Uniques {
			if indexed(t, u) {
				continue
			}
			if len(u) == 1 {
				for i := range ct.Columns {
					if ct.Columns[i].Name == u[0] {
						ct.Columns[i].Unique = true
					}
				}
				continue
			}
			ct.Uniques = append(ct.Uniques, u)
		}
		for _, fk := range t.ForeignKeys {
			ct.ForeignKeys = append(ct.ForeignKeys, fk.def())
		}
		out = append(out, t.featureDefs(ct)...)
		for _, ix := range t.Indexes {
			out = append(out, ix)
		}
	}
	return out
}

func indexedCols(t *TableInfo, cols []string) bool {
	for _, ix := range t.Indexes {
		if sameSet(ix.Columns, cols) {
			return true
		}
	}
	return false
}

func indexed(t *TableInfo, cols []string) bool {
	for _, ix := range t.Indexes {
		if ix.Unique && ix.Where == nil && sameSet(ix.Columns, cols) {
			return true
		}
	}
	return false
}

// genRows draws the initial rows of every table: NOT NULL, CHECK and every
// unique set hold, so the setup never fails.
func (g *Generator) genRows() []sqlast.Stmt {
	var out []sqlast.Stmt
	for _, t := range g.schema.Tables {
		n := g.r.IntN(g.cfg.MaxRows + 1)
		taken := make([]map[string]bool, len(t.rowKeySets()))
		for i := range taken {
			taken[i] = map[string]bool{}
		}
		ins := &sqlast.Insert{Table: t.Name, Columns: columnNames(t)}
		for range n {
			row, ok := g.uniqueRow(t, taken)
			if !ok {
				continue
			}
			var exprs []sqlast.Expr
			for i, c := range t.Columns {
				c.see(row[i])
				exprs = append(exprs, row[i].Literal())
			}
			ins.Values = append(ins.Values, exprs)
		}
		if len(ins.Values) > 0 {
			out = append(out, ins)
		}
	}
	return out
}

// uniqueRow draws a row whose key tuples are not taken yet and marks them taken.
func (g *Generator) uniqueRow(t *TableInfo, taken []map[string]bool) ([]Value, bool) {
	keySets := t.rowKeySets()
	for range 20 {
		row := make([]Value, len(t.Columns))
		for i, c := range t.Columns {
			if c.Ref != nil {
				v, ok := g.initialRef(c)
				if !ok {
					return nil, false
				}
				row[i] = v
				continue
			}
			if !c.NotNull && !t.isKey(c.Name) && g.chance(0.15) {
				row[i] = Value{Null: true, Type: c.Type}
				continue
			}
			row[i] = g.constFor(c)
		}
		keys := make([]string, len(keySets))
		clash := false
		for k, ks := range keySets {
			var parts []string
			null := false
			for _, name := range ks {
				v := row[columnIndex(t, name)]
				null = null || v.Null
				parts = append(parts, v.key())
			}
			keys[k] = strings.Join(parts, "\x01")
			// Rows with a NULL in a UNIQUE set never clash.
			if !null && taken[k][keys[k]] {
				clash = true
			}
		}
		if clash {
			continue
		}
		for k := range keySets {
			taken[k][keys[k]] = true
		}
		return row, true
	}
	return nil, false
}

func columnNames(t *TableInfo) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func columnIndex(t *TableInfo, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func hasBool(t *TableInfo, cols []string) bool {
	for _, c := range cols {
		if t.Column(c).Type == sqlast.TypeBool {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

func containsSet(sets [][]string, s []string) bool {
	for _, x := range sets {
		if sameSet(x, s) {
			return true
		}
	}
	return false
}

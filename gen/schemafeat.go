package gen

import (
	"fmt"

	"github.com/txlab/txlab/sqlast"
)

// Schema features (package features' auto-increment, sequence,
// partial-index, expression-index, generated-column), drawn per table where
// the target supports them, each in roughly one case of ten. A generator
// without these features draws nothing here, so every base seed stays as
// it was.

// schemaFeatureRatio is the chance that a table gets one of the features
// it is eligible for (a case has two tables on average).
const schemaFeatureRatio = 0.06

// schemaFeatures draws t's schema features, after its keys and indexes.
func (g *Generator) schemaFeatures(t *TableInfo) {
	if len(t.PrimaryKey) == 1 {
		// A single INT key may be numbered by the DBMS: AUTO_INCREMENT
		// (SERIAL, identity) or a sequence, as the target supports them,
		// one or the other with the same chance.
		var numbered []string
		for _, f := range []string{"auto-increment", "sequence"} {
			if g.can(f) {
				numbered = append(numbered, f)
			}
		}
		if pk := t.Column(t.PrimaryKey[0]); pk.Type == sqlast.TypeInt && len(numbered) > 0 && g.chance(0.6) {
			if numbered[g.r.IntN(len(numbered))] == "auto-increment" {
				t.Auto = pk.Name
			} else {
				t.Seq = t.Name + "_seq"
			}
			// The DBMS's numbers would break most CHECKs: the column has
			// none.
			pk.Check = nil
		}
	}
	if g.can("generated-column") && g.chance(schemaFeatureRatio) {
		g.generatedColumn(t)
	}
	if g.can("partial-index") && g.chance(schemaFeatureRatio) {
		g.partialIndex(t)
	}
	if g.can("expression-index") && g.chance(schemaFeatureRatio) {
		g.expressionIndex(t)
	}
}

// generatedColumn adds a column computed from another: c + k for a
// number, LOWER(c) or UPPER(c) for a string (deterministic, so PostgreSQL
// takes them: docs ddl-generated-columns). PostgreSQL (before 18) stores
// them; MariaDB and SQLite also compute them when read (VIRTUAL).
func (g *Generator) generatedColumn(t *TableInfo) {
	var src []*ColumnInfo
	for _, c := range t.Columns {
		// MySQL and TiDB refuse a generated column over an AUTO_INCREMENT
		// one (error 3109; MySQL 8.0 manual 15.1.20.8, "CREATE TABLE and
		// Generated Columns"): not on the MySQL family.
		if c.Type != sqlast.TypeBool && !(g.cfg.Dialect == sqlast.MySQL && c.Name == t.Auto) {
			src = append(src, c)
		}
	}
	if len(src) == 0 {
		return
	}
	c := src[g.r.IntN(len(src))]
	gen := &sqlast.Generated{Always: g.chance(0.5)}
	ref := &sqlast.ColumnRef{Column: c.Name}
	if categoryOf(c.Type) == catText {
		gen.Expr = &sqlast.Func{Name: []string{"LOWER", "UPPER"}[g.r.IntN(2)], Args: []sqlast.Expr{ref}}
	} else {
		gen.Expr = &sqlast.Binary{Op: []string{"+", "-"}[g.r.IntN(2)], L: ref, R: &sqlast.Literal{Kind: sqlast.LitInt, Text: fmt.Sprint(1 + g.r.IntN(9))}}
	}
	switch g.cfg.Dialect {
	case sqlast.Postgres:
		gen.Storage = "STORED"
	default:
		// Not MariaDB's PERSISTENT: TiDB and MySQL reject it (TiDB v8.5.6:
		// a syntax error), and STORED means the same on MariaDB.
		gen.Storage = []string{"", "VIRTUAL", "STORED"}[g.r.IntN(3)]
	}
	t.Generated = append(t.Generated, &ColumnInfo{Name: fmt.Sprintf("g%d", len(t.Generated)), Type: c.Type, Gen: gen})
}

// partialIndex adds CREATE [UNIQUE] INDEX … (c) WHERE pred, pred a
// comparison of a column with a constant (PostgreSQL: the predicate may
// use immutable functions only; docs indexes-partial). A UNIQUE one
// forbids duplicates among the rows pred holds for; the initial rows keep
// its columns unique outright (rowKeys), and upserts never aim at it (its
// conflict target would have to repeat pred).
func (g *Generator) partialIndex(t *TableInfo) {
	names := columnNames(t)
	cols := []string{g.pick(names)}
	c := t.Column(g.pick(names))
	var pred sqlast.Expr
	ref := &sqlast.ColumnRef{Column: c.Name}
	switch {
	case c.Type == sqlast.TypeBool || g.chance(0.25):
		pred = &sqlast.IsNull{X: ref, Not: true}
	default:
		v := g.freshFor(c)
		pred = &sqlast.Binary{Op: []string{">", "<", "<>", ">="}[g.r.IntN(4)], L: ref, R: v.Literal()}
	}
	ix := &sqlast.CreateIndex{Name: fmt.Sprintf("%s_p%d", t.Name, len(t.Indexes)), Table: t.Name, Columns: cols, Where: pred}
	if !hasBool(t, cols) && g.chance(0.5) {
		ix.Unique = true
		t.rowKeys = append(t.rowKeys, cols)
	}
	t.Indexes = append(t.Indexes, ix)
}

// expressionIndex adds CREATE [UNIQUE] INDEX … ((c + k)) or ((LOWER(c))).
// Both are one-to-one on the generator's values (strings are lower-case
// letters), so a UNIQUE one's column stays unique in the initial rows
// (rowKeys). The MySQL family gets string functions only: TiDB allows the
// functions of tidb_allow_function_for_expression_index (LOWER, UPPER, …)
// in an expression index.
func (g *Generator) expressionIndex(t *TableInfo) {
	var src []*ColumnInfo
	for _, c := range t.Columns {
		if c.Type == sqlast.TypeBool || g.cfg.Dialect == sqlast.MySQL && categoryOf(c.Type) != catText {
			continue
		}
		src = append(src, c)
	}
	if len(src) == 0 {
		return
	}
	c := src[g.r.IntN(len(src))]
	ref := &sqlast.ColumnRef{Column: c.Name}
	var e sqlast.Expr
	if categoryOf(c.Type) == catText {
		e = &sqlast.Func{Name: []string{"LOWER", "UPPER"}[g.r.IntN(2)], Args: []sqlast.Expr{ref}}
	} else {
		e = &sqlast.Binary{Op: "+", L: ref, R: &sqlast.Literal{Kind: sqlast.LitInt, Text: fmt.Sprint(1 + g.r.IntN(9))}}
	}
	ix := &sqlast.CreateIndex{Name: fmt.Sprintf("%s_e%d", t.Name, len(t.Indexes)), Table: t.Name, Exprs: []sqlast.Expr{e}}
	if g.chance(0.5) {
		ix.Unique = true
		t.rowKeys = append(t.rowKeys, []string{c.Name})
	}
	t.Indexes = append(t.Indexes, ix)
}

// rowKeySets are the column sets the initial rows keep unique.
func (t *TableInfo) rowKeySets() [][]string {
	if len(t.rowKeys) == 0 {
		return t.KeySets()
	}
	return append(t.KeySets(), t.rowKeys...)
}

// featureDefs completes ct with t's schema features: the numbered key
// column, the generated columns (last), and returns the statements that
// create the table: its sequence first, where it has one.
func (t *TableInfo) featureDefs(ct *sqlast.CreateTable) []sqlast.Stmt {
	for i := range ct.Columns {
		if ct.Columns[i].Name == t.Auto {
			ct.Columns[i].AutoIncrement = true
		}
	}
	for _, c := range t.Generated {
		ct.Columns = append(ct.Columns, sqlast.ColumnDef{Name: c.Name, Type: c.Type, Generated: c.Gen})
	}
	if t.Seq != "" {
		// Above the initial rows' keys, so the numbers clash with none.
		return []sqlast.Stmt{&sqlast.CreateSequence{Name: t.Seq, Start: "1000"}, ct}
	}
	return []sqlast.Stmt{ct}
}

// leaveToDBMS adjusts an INSERT's column list: a table with generated
// columns always names its columns (a VALUES row for every column would
// give them values, which PostgreSQL and MariaDB reject), and now and then
// the column the DBMS numbers is left out, so the DBMS gives it the next
// number.
func (g *Generator) leaveToDBMS(t *TableInfo, named bool, cols []*ColumnInfo) (bool, []*ColumnInfo) {
	if len(t.Generated) > 0 {
		named = true
	}
	if t.Auto == "" || len(cols) < 2 || !g.chance(0.25) {
		return named, cols
	}
	var out []*ColumnInfo
	for _, c := range cols {
		if c.Name != t.Auto {
			out = append(out, c)
		}
	}
	return true, out
}

// keyValue is an INSERT's value for column c: now and then the next number
// of the sequence that fills t's key, else a drawn value.
func (g *Generator) keyValue(t *TableInfo, c *ColumnInfo) sqlast.Expr {
	if t.Seq != "" && len(t.PrimaryKey) == 1 && c.Name == t.PrimaryKey[0] && g.chance(0.3) {
		var arg sqlast.Expr = &sqlast.ColumnRef{Column: t.Seq}
		if g.cfg.Dialect == sqlast.Postgres {
			arg = &sqlast.Literal{Kind: sqlast.LitString, Text: t.Seq}
		}
		return &sqlast.Func{Name: "NEXTVAL", Args: []sqlast.Expr{arg}}
	}
	return g.rowValue(t, c).Literal()
}

package gen

import (
	"fmt"

	"github.com/txlab/txlab/sqlast"
)

// Foreign keys: where the target supports them, a later table now and then
// references a single-column key of an earlier one. The referenced column
// is the parent's primary key or a unique set of one column, so it is
// unique on every DBMS (PostgreSQL and SQLite want a unique constraint or
// index there, InnoDB an index that starts with it) and the child's column
// has exactly its type (MariaDB refuses a foreign key between columns of
// different types). InnoDB adds an index on the child's column itself.
//
// The initial rows of the child reference existing parent keys or are
// NULL, so the setup never fails; later INSERTs and UPDATEs of the child
// take a parent's key now and then and a value of their own otherwise, so
// both the check's failure and its success come up.

// ForeignKeyInfo is a foreign key of a generated table: Column references
// Parent's key column ParentColumn.
type ForeignKeyInfo struct {
	Column       string
	Parent       *TableInfo
	ParentColumn string
	OnDelete     sqlast.RefAction
	// Deferred: DEFERRABLE INITIALLY DEFERRED (PostgreSQL, SQLite), checked
	// at COMMIT.
	Deferred bool
}

// foreignKeyRatio is the share of tables after the first that get a foreign
// key when an earlier table has a single-column key: about 15 % of cases
// have one. The model stops at the first write a key can check or act on
// (most of them, on PostgreSQL and MariaDB), so at 30 % foreign keys left
// a third of a campaign's cases undecided.
const foreignKeyRatio = 0.3

// def is the table-level FOREIGN KEY element of fk.
func (fk *ForeignKeyInfo) def() sqlast.ForeignKey {
	return sqlast.ForeignKey{
		Columns:           []string{fk.Column},
		RefTable:          fk.Parent.Name,
		RefColumns:        []string{fk.ParentColumn},
		OnDelete:          fk.OnDelete,
		Deferrable:        fk.Deferred,
		InitiallyDeferred: fk.Deferred,
	}
}

// foreignKey now and then gives t, drawn after the tables of s, a foreign
// key to a single-column key of one of them.
func (g *Generator) foreignKey(s *Schema, t *TableInfo) {
	type parentKey struct {
		t   *TableInfo
		col *ColumnInfo
	}
	var keys []parentKey
	for _, p := range s.Tables {
		for _, ks := range p.KeySets() {
			if len(ks) == 1 {
				keys = append(keys, parentKey{p, p.Column(ks[0])})
			}
		}
	}
	if len(keys) == 0 || !g.chance(foreignKeyRatio) {
		return
	}
	pk := keys[g.r.IntN(len(keys))]
	var same []*ColumnInfo
	for _, c := range t.Columns {
		if c.Type == pk.col.Type && c.Ref == nil {
			same = append(same, c)
		}
	}
	var c *ColumnInfo
	if len(same) > 0 && g.chance(0.7) {
		c = same[g.r.IntN(len(same))]
	} else {
		// A column of its own, of the parent key's type exactly.
		c = &ColumnInfo{Name: fmt.Sprintf("c%d", len(t.Columns)), Type: pk.col.Type}
		t.Columns = append(t.Columns, c)
	}
	c.Ref = pk.col
	fk := &ForeignKeyInfo{Column: c.Name, Parent: pk.t, ParentColumn: pk.col.Name}
	// MySQL 8.0.16+ refuses a referential action on a column a CHECK
	// reads (error 3823); the MySQL family gets none there.
	actionable := c.Check == nil || g.cfg.Dialect != sqlast.MySQL
	switch p := g.r.Float64(); {
	case p < 0.45 && actionable && g.can("on-delete-cascade"):
		fk.OnDelete = sqlast.RefCascade
	case p < 0.6 && actionable && !c.NotNull:
		// A NOT NULL column cannot be set to NULL: MariaDB refuses the
		// key (error 1830), PostgreSQL the DELETE.
		fk.OnDelete = sqlast.RefSetNull
	case p < 0.75:
		fk.OnDelete = sqlast.RefRestrict
	case p < 0.85:
		fk.OnDelete = sqlast.RefNoAction
	}
	if g.can("deferred-constraint") && g.chance(0.3) {
		fk.Deferred = true
		if fk.OnDelete == sqlast.RefRestrict {
			// RESTRICT is checked at once even when deferrable.
			fk.OnDelete = sqlast.RefNoAction
		}
	}
	t.ForeignKeys = append(t.ForeignKeys, fk)
}

// initialRef draws the value of an initial row's foreign key column c: a
// key of the parent's initial rows that c's CHECK allows, or NULL. It
// reports false when there is none (the column is NOT NULL and no parent
// row fits).
func (g *Generator) initialRef(c *ColumnInfo) (Value, bool) {
	var fit []Value
	for _, v := range c.Ref.Seen {
		if c.Check.Holds(v) {
			fit = append(fit, v)
		}
	}
	if len(fit) > 0 && (c.NotNull || !g.chance(0.15)) {
		return fit[g.r.IntN(len(fit))], true
	}
	if c.NotNull {
		return Value{}, false
	}
	return Value{Null: true, Type: c.Type}, true
}

// refValue returns, for a foreign key column c, now and then a key the
// parent has held (which may be gone or uncommitted by now); false: draw
// the column's own value.
func (g *Generator) refValue(c *ColumnInfo) (Value, bool) {
	if c == nil || c.Ref == nil || len(c.Ref.Seen) == 0 || !g.chance(0.5) {
		return Value{}, false
	}
	return c.Ref.Seen[g.r.IntN(len(c.Ref.Seen))], true
}

package model

import (
	"slices"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// Foreign keys: the engine follows what the manuals decide, InnoDB's
// shared lock and PostgreSQL's FOR KEY SHARE lock on the parent row a
// child's INSERT checks (parentLocks), InnoDB's check of a child's UPDATE,
// of a parent's DELETE or key UPDATE under RESTRICT / NO ACTION and its ON
// DELETE CASCADE / SET NULL (immediate row-by-row checks:
// fk_immediate.go), PostgreSQL's check of a parent's DELETE or key UPDATE
// under NO ACTION / RESTRICT and its CASCADE and SET NULL actions and its
// deferred keys' checks at COMMIT (checks by triggers at the statement's
// end: fk_trigger.go), SQLite's CASCADE and SET NULL (the same code:
// restrictCheck), SQLite's deferred keys at COMMIT (sqliteDeferred) and
// SQLite's statement-level check, which only decides whether a statement
// fails (lockFreeCheck; checks where nothing locks rows: fk_lockfree.go); at
// any other statement whose outcome a foreign key can change it stops,
// naming the feature (foreign-key, on-delete-cascade,
// deferred-constraint). Every other statement is judged
// as before: the model's copies of the tables have no foreign keys, so
// they evaluate those alike.
//
// What a foreign key changes, from the manuals:
//   - an INSERT into the child, or an UPDATE of its referencing columns,
//     checks that the parent key exists, else fails (PostgreSQL 23503,
//     InnoDB 1452, SQLite "FOREIGN KEY constraint failed"). PostgreSQL's
//     check reads the latest committed parent row and locks it FOR KEY
//     SHARE (docs 15, 13.3.2 "Row-Level Locks": FOR KEY SHARE "… is
//     acquired by … foreign key checks" [ri_triggers.c]); InnoDB sets a
//     shared record lock on the parent row it examines (MySQL 8.4
//     Reference Manual 1.7.2.3 "FOREIGN KEY Constraint Differences":
//     "InnoDB sets shared row-level locks on child or parent records that
//     it must examine"). Both wait for a writer of that row, so a child
//     write blocks, and takes locks, where the model's copy would not;
//   - a DELETE of a parent row, or an UPDATE of its referenced key,
//     fails under RESTRICT / NO ACTION while a child row references it
//     (23503 / 1451), deletes the child rows under ON DELETE CASCADE and
//     sets them NULL under SET NULL: rows the statement writes in another
//     table, and locks there (InnoDB examines the child index even when
//     nothing references the row);
//   - a DEFERRABLE INITIALLY DEFERRED key (PostgreSQL, SQLite) is checked
//     at COMMIT, which then fails (docs 15, CREATE TABLE "INITIALLY
//     DEFERRED"; sqlite.org foreignkeys.html 4.2); PostgreSQL rolls the
//     transaction back, SQLite leaves it open ("the attempt fails",
//     src/fkey.c).
// A statement failing with such an error still matters on InnoDB, whose
// failed statement keeps the locks it took: the engine follows one of the
// statements above that failed by leaving the locks of both tables' rows
// open, and stops at any other statement that may be checked, whatever
// its outcome; on PostgreSQL a failed statement aborts its transaction,
// which leaves nothing (pgAborted).

// foreignKey is one foreign key of the case's tables.
type foreignKey struct {
	child   string
	cols    []string
	parent  string
	refCols []string // nil: the parent's primary key, or unknown
	sqlast.ForeignKey
}

// foreignKeys lists the foreign keys of the tables the setup created.
func (e *Engine) foreignKeys() []foreignKey {
	var out []foreignKey
	for name, ct := range e.schema {
		for _, fk := range sqlast.ForeignKeysOf(ct) {
			k := foreignKey{child: name, cols: fk.Columns, parent: fk.RefTable, refCols: fk.RefColumns, ForeignKey: fk}
			if k.refCols == nil {
				k.refCols = primaryKeyOf(e.schema[fk.RefTable])
			}
			out = append(out, k)
		}
	}
	// The reason named must not depend on the map's order.
	slices.SortFunc(out, func(a, b foreignKey) int { return strings.Compare(a.child+"\x00"+a.parent, b.child+"\x00"+b.parent) })
	return out
}

// primaryKeyOf returns ct's primary key columns; nil when ct is unknown
// or has none.
func primaryKeyOf(ct *sqlast.CreateTable) []string {
	if ct == nil {
		return nil
	}
	if ct.PrimaryKey != nil {
		return ct.PrimaryKey
	}
	for _, c := range ct.Columns {
		if c.PrimaryKey {
			return []string{c.Name}
		}
	}
	return nil
}

// foreignKeyHalt stops the engine when statement s of transaction t (st)
// is one whose outcome a foreign key of the case can change, and reports
// whether it did. Reads never are, nor writes of columns no key names. A
// check the model follows (lockFreeCheck, parentLocks) does not
// stop it: InnoDB's takes its shared locks on the parent rows here.
func (e *Engine) foreignKeyHalt(t *Txn, st *Stmt, s sqlast.Stmt) bool {
	fks := e.foreignKeys()
	if len(fks) == 0 {
		return false
	}
	e.restricts = nil
	if e.pgAborted(t, st) {
		return false
	}
	var hit *foreignKey
	var what string
	var locks []*Row
	var restricts []fkPart
	for i := range fks {
		w := fks[i].affects(s)
		if w == "" {
			w = e.innodbIndexChecks(&fks[i], s)
		}
		if w == "" || e.lockFreeCheck(&fks[i], s, w) {
			continue
		}
		if commit, ok := e.sqliteDeferred(t, st, &fks[i], s, w); ok {
			if commit {
				restricts = append(restricts, fkPart{k: &fks[i], atCommit: true})
			}
			continue
		}
		if w == "child" && e.pgChild(&fks[i], s) {
			restricts = append(restricts, fkPart{k: &fks[i], child: true})
			continue
		}
		if w == "child" {
			if rows, ok := e.parentLocks(t, st, &fks[i], s); ok {
				locks = append(locks, rows...)
				continue
			}
		}
		if w == "parent" && e.pgRestrict(&fks[i], s) {
			restricts = append(restricts, fkPart{k: &fks[i]})
			continue
		}
		if e.innodbFollows(t, st, &fks[i], s, w) {
			continue // fk_immediate.go
		}
		hit, what = &fks[i], w
		break
	}
	if hit == nil {
		for _, r := range locks {
			if t.locks == nil {
				t.locks = map[*Row]strength{}
			}
			t.locks[r] = max(t.locks[r], e.checkLock()) // or the stronger lock t holds already
		}
		e.restricts, e.restrictStmt = restricts, s
		return false
	}
	feature := "foreign-key"
	switch {
	case hit.Deferred():
		feature = "deferred-constraint"
	case what == "parent" && hit.action(s) == sqlast.RefCascade, what == "child or parent" && (hit.OnDelete == sqlast.RefCascade || hit.OnUpdate == sqlast.RefCascade):
		feature = "on-delete-cascade"
	}
	text := "the foreign key of %s referencing %s checks or acts on this %s of the %s (not modelled): %s"
	e.halt("not modelled: "+feature, text, hit.child, hit.parent, strings.ToUpper(keywordOf(st.SQL)), what, st.SQL)
	return true
}

// parentLocks follows InnoDB's check of key k for a child's INSERT …
// VALUES that succeeded without waiting: it returns the
// parent rows the check locks (checkLock) and true; false where the model
// does not follow it (another DBMS, the statement failed or waited, the
// key is not the parent's primary key, a value is not a literal, a parent
// row is not found as the latest committed or own version, another
// transaction holds it; PostgreSQL's is childCheck). MySQL 8.0 Reference
// Manual 1.7.2.3: "When performing foreign
// key checks, InnoDB sets shared row-level locks on child or parent
// records that it must examine"; it locks the parent's record only, not
// the gap before it, where it finds the key (row_ins_check_foreign_constraint:
// "Found a matching record. Lock only a record because we can allow
// inserts into gaps"), in the index the key references: the clustered
// index, which is the row, when that is the primary key. A failed check
// (a missing parent, a delete-marked record) locks more, and a waiting
// one is a lock wait the model does not judge here.
func (e *Engine) parentLocks(t *Txn, st *Stmt, k *foreignKey, s sqlast.Stmt) ([]*Row, bool) {
	ins, ok := s.(*sqlast.Insert)
	if !ok || e.rules.ForeignKeys != FKInnoDB || st.Err != nil || st.Blocked() || ins.Values == nil || ins.Replace || ins.OnConflict != nil {
		return nil, false
	}
	child, parent := e.schema[k.child], e.schema[k.parent]
	if child == nil || parent == nil || k.child == k.parent || !sameFold(primaryKeyOf(parent), k.refCols) {
		return nil, false
	}
	cols := ins.Columns
	if cols == nil {
		for _, c := range child.Columns {
			cols = append(cols, c.Name)
		}
	}
	var out []*Row
	for _, vals := range ins.Values {
		if len(vals) != len(cols) {
			return nil, false
		}
		key := make([]*sqlast.Literal, len(k.cols))
		null := false
		for i, c := range k.cols {
			j := slices.IndexFunc(cols, func(n string) bool { return strings.EqualFold(n, c) })
			if j < 0 {
				// Its DEFAULT, NULL when it has none: a NULL key is not checked.
				if d := columnOf(child, c); d == nil || d.Default != nil {
					return nil, false
				}
				null = true
				break
			}
			lit, ok := vals[j].(*sqlast.Literal)
			if !ok {
				return nil, false
			}
			if lit.Kind == sqlast.LitNull {
				null = true
				break
			}
			key[i] = lit
		}
		if null {
			continue
		}
		r := e.parentRow(t, st, parent, k.refCols, key)
		if r == nil {
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

// parentRow returns the row of table parent whose latest version at st's
// start holds key in cols (compared as the DBMS prints them, so only a
// literal written as it is stored matches), when no other transaction
// holds a lock on it that conflicts with the check's (checkLock: for
// InnoDB's shared lock any write, so the version is committed or t's
// own; PostgreSQL's FOR KEY SHARE lets a non-key UPDATE's version, with
// the same key, be another's); nil otherwise.
func (e *Engine) parentRow(t *Txn, st *Stmt, parent *sqlast.CreateTable, cols []string, key []*sqlast.Literal) *Row {
	pos := make([]int, len(cols))
	for i, c := range cols {
		if pos[i] = slices.IndexFunc(parent.Columns, func(d sqlast.ColumnDef) bool { return strings.EqualFold(d.Name, c) }); pos[i] < 0 {
			return nil
		}
	}
	var found *Row
	for _, r := range e.h.rows[parent.Name] {
		v := latest(r, st.Start)
		if v == nil || v.Deleted {
			continue
		}
		match := true
		for i, p := range pos {
			match = match && p < len(v.Values) && !v.Values[p].Null && v.Values[p].S == key[i].Text
		}
		if !match {
			continue
		}
		if found != nil {
			return nil // two rows with the key: not the model's to explain
		}
		if o, _ := lockedBy(r, t, e.checkLock(), st.Start, e.txns, false, false); o != nil {
			return nil // the check waits for o
		}
		found = r
	}
	return found
}

func columnOf(ct *sqlast.CreateTable, name string) *sqlast.ColumnDef {
	for i := range ct.Columns {
		if strings.EqualFold(ct.Columns[i].Name, name) {
			return &ct.Columns[i]
		}
	}
	return nil
}

func sameFold(a, b []string) bool {
	return len(a) == len(b) && len(a) > 0 && !slices.ContainsFunc(a, func(x string) bool { return !containsFold(b, x) })
}

// affects says whether statement s can be checked or acted on by the
// foreign key: "child" for a write of the child's referencing columns,
// "parent" for a delete or key change of the parent's rows, "" otherwise.
// A statement kind the model does not know that names the child or the
// parent counts as both.
func (k *foreignKey) affects(s sqlast.Stmt) string {
	sets := func(as []sqlast.Assignment, cols []string) bool {
		// An unknown key (refCols nil) may be any column.
		if cols == nil {
			return len(as) > 0
		}
		return slices.ContainsFunc(as, func(a sqlast.Assignment) bool { return containsFold(cols, a.Column) })
	}
	switch s := s.(type) {
	case *sqlast.SelectStmt:
		return ""
	case *sqlast.Insert:
		switch {
		case strings.EqualFold(s.Table, k.child):
			return "child"
		case !strings.EqualFold(s.Table, k.parent):
		case s.Replace:
			return "parent" // REPLACE deletes the row it replaces
		case s.OnConflict != nil && sets(s.OnConflict.Set, k.refCols):
			return "parent"
		}
	case *sqlast.Update:
		switch {
		case strings.EqualFold(s.Table, k.child) && sets(s.Set, k.cols):
			return "child"
		case strings.EqualFold(s.Table, k.parent) && sets(s.Set, k.refCols):
			return "parent"
		}
	case *sqlast.Delete:
		if strings.EqualFold(s.Table, k.parent) {
			return "parent"
		}
	default:
		named := false
		sqlast.Walk(s, func(n any) bool {
			if t, ok := n.(*sqlast.Table); ok && (strings.EqualFold(t.Name, k.child) || strings.EqualFold(t.Name, k.parent)) {
				named = true
			}
			return !named
		})
		if named {
			return "child or parent"
		}
	}
	return ""
}

// action is what the key does to the child rows of a parent row that
// statement s deletes (DELETE, REPLACE) or whose key it changes.
func (k *foreignKey) action(s sqlast.Stmt) sqlast.RefAction {
	switch s := s.(type) {
	case *sqlast.Delete:
		return k.OnDelete
	case *sqlast.Insert:
		if s.Replace {
			return k.OnDelete
		}
	}
	return k.OnUpdate
}

// foreignKeyIndexes are the indexes InnoDB creates on ct's referencing
// columns where no index starts with them ("Such an index is created on
// the referencing table automatically if it does not exist", MySQL 8.4
// Reference Manual 15.1.20.5 "FOREIGN KEY Constraints", Conditions and
// Restrictions), and DBMSs like it (Rules.ForeignKeyIndexes): columns of a
// secondary index there. Other DBMSs create none.
func (e *Engine) foreignKeyIndexes(ct *sqlast.CreateTable) [][]string {
	if !e.rules.ForeignKeyIndexes {
		return nil
	}
	var out [][]string
	for _, fk := range ct.ForeignKeys {
		out = append(out, fk.Columns)
	}
	return out
}

// inlineReferencesHalt stops the engine at a CREATE TABLE with a column's
// REFERENCES where what that means depends on the server (the MySQL
// family: MySQL ignores it, MariaDB from 10.5 makes a foreign key of it,
// with an index; sqlast/fk.go), which the model does not know.
func (e *Engine) inlineReferencesHalt(ct *sqlast.CreateTable) bool {
	if !e.dialect.InlineReferencesVary() {
		return false
	}
	for _, c := range ct.Columns {
		if c.References != nil {
			e.halt("not modelled: foreign-key", "column %s of table %s has a REFERENCES, which MySQL ignores and MariaDB 10.5+ enforces", c.Name, ct.Name)
			return true
		}
	}
	return false
}

// withoutForeignKeys is ct without its foreign keys: the model's
// temporary copies cannot have them (PostgreSQL lets a temporary table
// reference temporary ones only, InnoDB refuses them on temporary tables)
// and need not, as the engine stops where one matters.
func withoutForeignKeys(ct sqlast.CreateTable) sqlast.CreateTable {
	ct.ForeignKeys = nil
	ct.Columns = slices.Clone(ct.Columns)
	for i := range ct.Columns {
		ct.Columns[i].References = nil
	}
	return ct
}

func keywordOf(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "(;")
}

func containsFold(xs []string, s string) bool {
	return slices.ContainsFunc(xs, func(x string) bool { return strings.EqualFold(x, s) })
}

package model

import (
	"slices"

	"github.com/txlab/txlab/sqlast"
)

// strength is a row lock's strength. InnoDB and TiDB have two, shared
// and exclusive (lockShare, lockUpdate); PostgreSQL has four (PostgreSQL
// 15 docs 13.3.2 Row-Level Locks): FOR KEY SHARE, FOR SHARE, FOR NO KEY
// UPDATE and FOR UPDATE, weakest first.
type strength int8

// Row lock strengths, weakest first: each conflicts with every lock the
// weaker ones conflict with, so a transaction holding several on a row
// holds, in effect, the strongest.
const (
	lockNone strength = iota
	lockKeyShare
	lockShare
	lockNoKeyUpdate
	lockUpdate
)

// conflicts reports whether a lock of strength a conflicts with one of b
// held by another transaction: Table 13.3 of PostgreSQL's documentation,
// which with FOR SHARE and FOR UPDATE alone is InnoDB's S and X.
func (a strength) conflicts(b strength) bool {
	if a == lockNone || b == lockNone {
		return false
	}
	lo, hi := min(a, b), max(a, b)
	switch lo {
	case lockKeyShare:
		return hi == lockUpdate
	case lockShare:
		return hi >= lockNoKeyUpdate
	}
	return true // FOR NO KEY UPDATE and FOR UPDATE conflict with each other and themselves
}

func (a strength) String() string {
	return [...]string{"no lock", "FOR KEY SHARE", "FOR SHARE", "FOR NO KEY UPDATE", "FOR UPDATE"}[a]
}

// lockOf is the strength of the row lock a locking clause asks for.
func lockOf(m sqlast.LockMode) strength {
	switch m {
	case sqlast.LockKeyShare:
		return lockKeyShare
	case sqlast.LockShare:
		return lockShare
	case sqlast.LockNoKeyUpdate:
		return lockNoKeyUpdate
	case sqlast.LockUpdate:
		return lockUpdate
	}
	return lockNone
}

// writeLock is the strength of the lock a version's write holds on its
// row while its transaction runs, and whether that strength is certain.
// A deletion and an insertion hold FOR UPDATE (the DBMSs without key
// locks: their exclusive lock); an UPDATE's version records its own.
func (v *Version) writeLock() (s strength, sure bool) {
	if prev := v.changed(); v.Deleted || prev == nil || prev.Deleted {
		return lockUpdate, true
	}
	switch v.lock {
	case lockNone:
		return lockUpdate, true
	case lockNoKeyUpdate:
		return lockNoKeyUpdate, !v.lockUnsure
	}
	return v.lock, true
}

// heldBy is the strongest lock transaction o holds on r at at through
// the versions it wrote; weakest takes an uncertain strength at its
// weakest (FOR NO KEY UPDATE), else at FOR UPDATE.
func heldBy(r *Row, o *Txn, at int, weakest bool) strength {
	held := lockNone
	for _, v := range r.Versions {
		if v.Txn != o || v.At >= at || !live(v, at) {
			continue
		}
		s, sure := v.writeLock()
		if !sure && !weakest {
			s = lockUpdate
		}
		held = max(held, s)
	}
	return held
}

// keyColumns are the positions of table's columns that make an UPDATE of
// them take FOR UPDATE in PostgreSQL: the columns of its unique indexes
// usable by a foreign key (primary key, UNIQUE constraints, CREATE UNIQUE
// INDEX; 13.3.2 leaves out partial and expression indexes, which the
// model's schema does not record as unique).
func (e *Engine) keyColumns(table string) []int {
	ct := e.schema[table]
	if ct == nil {
		return nil
	}
	var out []int
	add := func(name string) {
		if i := slices.IndexFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return c.Name == name }); i >= 0 && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	for _, c := range ct.Columns {
		if c.Unique || c.PrimaryKey {
			add(c.Name)
		}
	}
	for _, idx := range slices.Concat(ct.Uniques, [][]string{ct.PrimaryKey}, e.inlineUnique[table], e.laterUnique[table]) {
		for _, name := range idx {
			add(name)
		}
	}
	return out
}

// setsKey reports whether an UPDATE's (or an upsert's) assignments name a
// key column of table.
func (e *Engine) setsKey(table string, set []sqlast.Assignment) bool {
	ct := e.schema[table]
	if ct == nil {
		return true
	}
	keys := e.keyColumns(table)
	for _, a := range set {
		if i := slices.IndexFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return c.Name == a.Column }); i < 0 || slices.Contains(keys, i) {
			return true
		}
	}
	return false
}

// changed is the version v's write changed: its predecessor, past the
// versions of writers that aborted before it (a ROLLBACK TO SAVEPOINT's
// undone part: for the row's later writers they never happened).
func (v *Version) changed() *Version {
	prev := v.Prev
	for prev != nil && prev.Txn != v.Txn && prev.Txn.abortedBefore(v.At) {
		prev = prev.Prev
	}
	return prev
}

// markWriteLock records the strength of the lock v's UPDATE took, where
// the rules have key locks: FOR UPDATE when it changed the value of a key
// column, FOR NO KEY UPDATE otherwise (values compared as the DBMS prints
// them: a value printed alike is stored alike). An upsert's update that
// names a key column in its SET is left uncertain: which lock ON CONFLICT
// DO UPDATE takes then is not documented.
func (e *Engine) markWriteLock(v *Version, upsertSetsKey bool) {
	prev := v.changed()
	if !e.rules.KeyLocks || v.Deleted || prev == nil || prev.Deleted {
		return
	}
	if upsertSetsKey {
		v.lock, v.lockUnsure = lockNoKeyUpdate, true
		return
	}
	v.lock = lockNoKeyUpdate
	for _, i := range e.keyColumns(v.Row.Table) {
		if i >= len(v.Values) || i >= len(prev.Values) || v.Values[i] != prev.Values[i] {
			v.lock = lockUpdate
			return
		}
	}
}

// writeLockAtLeast is the weakest row lock an UPDATE or an upsert takes:
// FOR NO KEY UPDATE where the rules have key locks (PostgreSQL), else the
// exclusive lock.
func (e *Engine) writeLockAtLeast() strength {
	if e.rules.KeyLocks {
		return lockNoKeyUpdate
	}
	return lockUpdate
}

// markWriteLocks records the strength of the row locks the write s of t
// just made versions with (markWriteLock).
func (e *Engine) markWriteLocks(t *Txn, s *stmtInfo) {
	upsertSetsKey := false
	if ins, ok := s.ast.(*sqlast.Insert); ok {
		upsertSetsKey = ins.OnConflict == nil || e.setsKey(s.table, ins.OnConflict.Set)
	}
	for _, r := range e.h.rows[s.table] {
		if n := len(r.Versions); n > 0 && r.Versions[n-1].Txn == t && r.Versions[n-1].At == e.h.now {
			e.markWriteLock(r.Versions[n-1], upsertSetsKey)
		}
	}
}

package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// PostgreSQL's foreign keys. Its checks are system triggers that run at
// the end of the statement (src/backend/utils/adt/ri_triggers.c); the
// model follows, for an immediate (NOT DEFERRABLE) key:
//
//   - the check of a child's INSERT … VALUES (parentLocks):
//     SELECT 1 FROM ONLY parent x WHERE key = $1 FOR KEY SHARE OF x, so
//     the parent row is locked FOR KEY SHARE (docs 15, 13.3.2 "Row-Level
//     Locks": FOR KEY SHARE is "acquired by … foreign key checks"); a
//     DELETE or key UPDATE of that row (FOR UPDATE) waits for it, a
//     non-key UPDATE (FOR NO KEY UPDATE) does not. At READ COMMITTED the
//     check reads a fresh snapshot; at REPEATABLE READ and SERIALIZABLE
//     the transaction's (RI_FKey_check: detectNewRows is false), and a
//     parent row deleted or key-updated since fails the check with 40001
//     ("could not serialize access due to concurrent update"), while one
//     only non-key updated since is locked in its latest version
//     (measured on 15.18: bugs/doc-pg-fk-rr-*.txn). pgCheckSees;
//   - the check of a parent's DELETE, or UPDATE of the referenced key,
//     under NO ACTION or RESTRICT (restrictCheck): SELECT 1 FROM ONLY
//     child x WHERE fk = $1 FOR KEY SHARE OF x, with the latest snapshot
//     at every level (detectNewRows is true), so a child row committed
//     after the transaction's snapshot makes it fail as well (CREATE
//     TABLE, REFERENCES: "NO ACTION … an error indicating that the
//     deletion or update would create a foreign key constraint
//     violation"; measured: bugs/doc-pg-fk-restrict-sees-new-child.txn).
//     The model judges a statement that succeeded: no row its check sees
//     may reference a key it removed;
//   - the actions ON DELETE CASCADE, ON UPDATE CASCADE and SET NULL
//     (restrictCheck, pgAction): the trigger runs DELETE FROM ONLY child
//     WHERE fk = $1, or UPDATE ONLY child SET fk = NULL (the new key)
//     WHERE fk = $1, as the parent's transaction, with the latest
//     snapshot (and at REPEATABLE READ and SERIALIZABLE the transaction's
//     as the crosscheck: a child row changed after it fails the statement
//     with 40001); its writes lock the child rows as any DELETE or UPDATE
//     (measured: bugs/doc-pg-fk-cascade-locks.txn);
//   - a statement that failed aborts its transaction (PostgreSQL rolls a
//     transaction back at its first error), which takes every lock and
//     write of it back: whatever the check did leaves nothing behind
//     (pgAborted).
//
// The rest halts by name: a key the transaction may defer, SET DEFAULT,
// an action whose writes set off other keys' actions, a check or action
// that waited, a child row another transaction is changing, NO ACTION's
// look for another parent row with the key (ri_Check_Pk_Match), a
// self-reference, a child's UPDATE of its referencing columns.

// srcPGForeignKeys is where the model's reading of PostgreSQL's foreign
// keys comes from (Rules.Sources).
const srcPGForeignKeys = "PostgreSQL 15 docs, CREATE TABLE (REFERENCES: NO ACTION and RESTRICT raise an error when a referenced row is deleted or its key changed, CASCADE deletes or updates the referencing rows, SET NULL sets their referencing columns to null; NOT DEFERRABLE constraints are checked after every statement) and 13.3.2 Row-Level Locks (FOR KEY SHARE is taken by foreign key checks); src/backend/utils/adt/ri_triggers.c (the checks' queries: SELECT … FOR KEY SHARE, a child's check at the transaction snapshot, a parent's with the latest one; the actions' DELETE and UPDATE of the child run as the parent's transaction, with the transaction snapshot as crosscheck)"

// checkLock is the row lock a foreign key's check takes on the parent row
// it finds: InnoDB's shared lock, PostgreSQL's FOR KEY SHARE; lockNone
// where the model does not follow the check.
func (e *Engine) checkLock() strength {
	switch {
	case slices.Contains(innodb, e.rules.DBMS):
		return lockShare
	case e.rules.DBMS == "postgres" && e.rules.KeyLocks:
		return lockKeyShare
	}
	return lockNone
}

// pgAborted reports whether statement st failed on PostgreSQL, which then
// aborts its transaction: "ERROR: current transaction is aborted"
// follows for every later statement, and nothing the failed statement or
// its checks did remains.
func (e *Engine) pgAborted(t *Txn, st *Stmt) bool {
	return e.rules.DBMS == "postgres" && st.Err != nil && (st.Err.RolledBack || !t.Explicit)
}

// pgCheckSees reports whether the check of a child's write sees parent row
// r, found in its latest version with key, with that key (always true
// outside PostgreSQL, whose check at READ COMMITTED reads the latest
// version). At REPEATABLE READ and SERIALIZABLE the check reads the
// transaction's snapshot: r must be there with the key and have been
// changed since by non-key UPDATEs only (FOR NO KEY UPDATE, which FOR KEY
// SHARE does not conflict with); a DELETE or a key UPDATE since makes the
// check fail (40001), and a row the snapshot does not hold is not found.
func (e *Engine) pgCheckSees(t *Txn, st *Stmt, r *Row, parent *sqlast.CreateTable, cols []string, key []*sqlast.Literal) bool {
	if e.rules.DBMS != "postgres" || e.rules.Source[KindInsert] != SnapTxn || t.Snapshot < 0 || own(r, t) != nil {
		return true // the statement takes the snapshot, or r is t's own
	}
	sv := visible(committed(r, t.Snapshot))
	if sv == nil {
		return false
	}
	after := false
	for _, v := range r.Versions {
		if v == sv {
			after = true
			continue
		}
		if !after || !live(v, st.Start) || v.At >= st.Start {
			continue
		}
		if v.Deleted || v.lock != lockNoKeyUpdate || v.lockUnsure {
			return false
		}
	}
	return true
}

// pgRestrict reports whether the model follows key k's part in s, a
// parent's DELETE or UPDATE of the referenced key (restrictCheck): an
// immediate key of PostgreSQL between two tables whose key columns have
// the same types (the model compares their values as printed), under NO
// ACTION or RESTRICT, or under CASCADE or SET NULL (pgAction) where the
// child rows' change stops there: the child is no parent of another key,
// has no generated column (computed from the columns set), and the
// columns SET NULL sets may hold NULL and those ON UPDATE CASCADE sets
// are in no unique key of the child.
func (e *Engine) pgRestrict(k *foreignKey, s sqlast.Stmt) bool {
	switch s.(type) {
	case *sqlast.Delete, *sqlast.Update:
	default:
		return false
	}
	if e.rules.DBMS != "postgres" || !e.rules.KeyLocks || k.Deferrable || strings.EqualFold(k.child, k.parent) || len(k.cols) != len(k.refCols) {
		return false
	}
	child, parent := e.schema[k.child], e.schema[k.parent]
	if child == nil || parent == nil {
		return false
	}
	for i := range k.cols {
		c, p := columnOf(child, k.cols[i]), columnOf(parent, k.refCols[i])
		if c == nil || p == nil || c.Type != p.Type || c.Size != p.Size {
			return false
		}
	}
	act := k.action(s)
	switch act {
	case sqlast.RefDefault, sqlast.RefNoAction, sqlast.RefRestrict:
		return true
	case sqlast.RefCascade, sqlast.RefSetNull:
	default:
		return false
	}
	for _, o := range e.foreignKeys() {
		if strings.EqualFold(o.parent, k.child) {
			return false
		}
	}
	if slices.ContainsFunc(child.Columns, func(c sqlast.ColumnDef) bool { return c.Generated != nil }) {
		return false
	}
	keys := e.keyColumns(k.child)
	for _, c := range k.cols {
		d := columnOf(child, c)
		i := slices.IndexFunc(child.Columns, func(x sqlast.ColumnDef) bool { return strings.EqualFold(x.Name, c) })
		switch {
		case act == sqlast.RefSetNull && (d.NotNull || d.PrimaryKey || containsFold(child.PrimaryKey, c)):
			return false
		case act == sqlast.RefCascade && slices.Contains(keys, i) && !isDelete(s):
			return false
		}
	}
	return true
}

func isDelete(s sqlast.Stmt) bool {
	_, ok := s.(*sqlast.Delete)
	return ok
}

// restrictCheck judges the parent-side checks (e.restricts) of the
// statement st of t that just ran and succeeded: for every row it deleted
// or whose referenced key it changed, no child row the check sees may
// hold the old key. The check reads the latest committed rows and t's own
// when it runs, at the statement's end, after its row locks were granted:
// a child row committed while the statement ran is seen when its writer
// held a lock on a parent row the statement wrote (the statement waited
// for it); any other one that would change the outcome stops the model,
// as does a child row another transaction is changing (the check waits
// for it) and another parent row with the old key (NO ACTION then lets
// the statement pass).
func (e *Engine) restrictCheck(t *Txn, st *Stmt) *Deviation {
	ks := e.restricts
	e.restricts = nil
	for _, k := range ks {
		child, parent := e.schema[k.child], e.schema[k.parent]
		cpos, ppos := positions(child, k.cols), positions(parent, k.refCols)
		if cpos == nil || ppos == nil {
			e.halt("not modelled: foreign-key", "the foreign key of %s referencing %s: a key column is not found", k.child, k.parent)
			return nil
		}
		act := k.action(e.restrictStmt)
		var written []*Row
		var removed, added []target.Row
		for _, r := range e.h.rows[k.parent] {
			n := len(r.Versions)
			if n == 0 || r.Versions[n-1].Txn != t || r.Versions[n-1].At != e.h.now {
				continue
			}
			v := r.Versions[n-1]
			old := visible(v.changed())
			if old == nil {
				continue
			}
			key := pick(old.Values, ppos)
			if key == nil || !v.Deleted && rowKey(pick(v.Values, ppos)) == rowKey(key) {
				continue // a NULL key references nothing; an unchanged one is not checked
			}
			written = append(written, r)
			removed = append(removed, key)
			added = append(added, pick(v.Values, ppos))
		}
		for i, key := range removed {
			for _, r := range e.h.rows[k.parent] {
				if r == written[i] {
					continue
				}
				for _, v := range []*Version{latest(r, st.End), committed(r, st.End)} {
					if v := visible(v); v != nil && rowKey(pick(v.Values, ppos)) == rowKey(key) {
						e.halt("not modelled: foreign-key", "another row of %s holds the key %v that %s removed: NO ACTION's check may pass (not modelled): %s", k.parent, key, keywordOf(st.SQL), st.SQL)
						return nil
					}
				}
			}
			for _, cr := range e.h.rows[k.child] {
				refs := func(v *Version) bool {
					v = visible(v)
					return v != nil && rowKey(pick(v.Values, cpos)) == rowKey(key)
				}
				seen, ok := e.checkSees(t, st, cr, written, refs)
				if !ok {
					return nil
				}
				if refs(seen) && (act == sqlast.RefCascade || act == sqlast.RefSetNull) {
					if !e.pgAction(t, st, k, cr, seen, cpos, act, added[i]) {
						return nil
					}
					continue
				}
				if refs(seen) {
					d := &Deviation{Kind: "missing-error", Verdict: verdict.Bug, Stmt: st, StmtKind: strings.ToUpper(keywordOf(st.SQL)), Table: k.parent,
						Rule: e.rules.rule("foreign-key-restrict", "a DELETE of a referenced row, or an UPDATE of its referenced key, fails while a row of the referencing table that the check's latest snapshot shows still references it (NO ACTION, RESTRICT)"),
						Text: fmt.Sprintf("connection %d's %s succeeded, but row %v of %s, which its foreign key check sees, references the key %v it removed from %s; %s documents error 23503",
							st.Conn, strings.ToUpper(keywordOf(st.SQL)), seen.Values, k.child, key, k.parent, e.rules.DBMS)}
					e.halt(deviated, "stopped at the first deviation")
					return d
				}
			}
		}
	}
	return nil
}

// pgAction makes the change key k's action (CASCADE, SET NULL) makes to
// child row cr, whose version seen references a key statement st of t
// removed (to add, ON UPDATE CASCADE): the RI trigger runs DELETE FROM
// ONLY child WHERE fk = $1, or UPDATE ONLY child SET fk = NULL (or the
// new key), as t, and those writes lock the row as any DELETE or UPDATE
// (markWriteLock). It reports false, having stopped the engine, where the
// model does not follow that write: another transaction holds the row
// locked (the action waits), or, at REPEATABLE READ and SERIALIZABLE, the
// version the action's latest snapshot finds is not the transaction
// snapshot's (ri_PerformCheck's crosscheck snapshot: PostgreSQL fails
// the statement with 40001, measured on 15.18).
func (e *Engine) pgAction(t *Txn, st *Stmt, k *foreignKey, cr *Row, seen *Version, cpos []int, act sqlast.RefAction, added target.Row) bool {
	deleting := isDelete(e.restrictStmt) && act == sqlast.RefCascade
	want := lockUpdate
	if !deleting {
		want = lockNoKeyUpdate
	}
	if o, _ := lockedBy(cr, t, want, st.End, e.txns, false, false); o != nil {
		e.halt("not modelled: "+pgActionFeature(act), "the action of the foreign key of %s referencing %s waits for transaction T%d (not modelled): %s", k.child, k.parent, o.ID, st.SQL)
		return false
	}
	if seen.Txn != t && e.rules.Source[KindInsert] == SnapTxn {
		snap, until := t.Snapshot, t.SnapshotUntil
		if snap < 0 {
			snap, until = st.Start, st.Start
		}
		if committed(cr, snap) != seen || committed(cr, max(snap, until)) != seen {
			e.halt("not modelled: "+pgActionFeature(act), "the action of the foreign key of %s referencing %s meets a row changed after the transaction's snapshot (40001, not modelled): %s", k.child, k.parent, st.SQL)
			return false
		}
	}
	if deleting {
		e.h.write(cr, nil, true, t)
		return true
	}
	if act == sqlast.RefCascade && added == nil {
		e.halt("not modelled: on-delete-cascade", "the foreign key of %s referencing %s cascades a NULL key (not modelled): %s", k.child, k.parent, st.SQL)
		return false
	}
	vals := slices.Clone(seen.Values)
	for j, p := range cpos {
		if act == sqlast.RefSetNull {
			vals[p] = target.NullValue
		} else {
			vals[p] = added[j]
		}
	}
	e.markWriteLock(e.h.write(cr, vals, false, t), false)
	return true
}

// pgActionFeature is the feature name of a halt at action act.
func pgActionFeature(act sqlast.RefAction) string {
	if act == sqlast.RefCascade {
		return "on-delete-cascade"
	}
	return "foreign-key"
}

// checkSees is the version of child row cr that a parent's check run by
// st of t sees (restrictCheck), and true; false, having stopped the
// engine, where that is not decided and matters (refs tells which
// versions do). written are the parent rows st wrote.
func (e *Engine) checkSees(t *Txn, st *Stmt, cr *Row, written []*Row, refs func(*Version) bool) (*Version, bool) {
	if ov := own(cr, t); ov != nil && live(ov, st.End) {
		return ov, true
	}
	late := committed(cr, st.End)
	if lv := latest(cr, st.End); lv != nil && lv.Txn != t && lv.Txn.activeAt(st.End) && (refs(lv) || refs(late)) {
		e.halt("not modelled: foreign-key", "a row of %s that references the key is being changed by transaction T%d: the check waits for it (not modelled): %s", cr.Table, lv.Txn.ID, st.SQL)
		return nil, false
	}
	early := committed(cr, st.Start)
	if early == late || refs(early) == refs(late) {
		return late, true
	}
	// Changed while the statement ran: seen if its writers held a parent
	// row the statement waited for.
	for _, v := range cr.Versions {
		if v.Txn.ID == 0 || v.Txn.CommitAt < st.Start || v.Txn.CommitAt >= st.End {
			continue
		}
		if !slices.ContainsFunc(written, func(r *Row) bool { return v.Txn.locks[r] != lockNone || own(r, v.Txn) != nil }) {
			e.halt("not modelled: foreign-key", "a row of %s that references the key was committed while the statement ran: whether its check saw it is not known: %s", cr.Table, st.SQL)
			return nil, false
		}
	}
	return late, true
}

// positions are the places of cols among ct's columns; nil when one is
// missing.
func positions(ct *sqlast.CreateTable, cols []string) []int {
	if ct == nil {
		return nil
	}
	out := make([]int, len(cols))
	for i, c := range cols {
		if out[i] = slices.IndexFunc(ct.Columns, func(d sqlast.ColumnDef) bool { return strings.EqualFold(d.Name, c) }); out[i] < 0 {
			return nil
		}
	}
	return out
}

// pick is vals at pos; nil when one is NULL or missing (a key with a NULL
// references nothing: MATCH SIMPLE).
func pick(vals target.Row, pos []int) target.Row {
	out := make(target.Row, len(pos))
	for i, p := range pos {
		if p >= len(vals) || vals[p].Null {
			return nil
		}
		out[i] = vals[p]
	}
	return out
}

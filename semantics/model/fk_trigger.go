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
//   - the check of a child's write, any INSERT or an UPDATE of the
//     referencing columns, of the keys the statement wrote (childCheck,
//     pgParentOf): SELECT 1 FROM ONLY parent x WHERE key = $1 FOR KEY
//     SHARE OF x, so
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
//   - a DEFERRABLE INITIALLY DEFERRED key (deferredCheck): the child's
//     check and NO ACTION's check run at COMMIT, as above (the child's with
//     the transaction snapshot at REPEATABLE READ: a parent deleted since
//     fails the COMMIT with 40001), the statement itself locks nothing;
//     RESTRICT and the actions are not deferred ("Referential actions
//     other than the NO ACTION check cannot be deferred"; measured:
//     bugs/doc-pg-fk-deferred-commit.txn). DEFERRABLE INITIALLY
//     IMMEDIATE checks as NOT DEFERRABLE does until SET CONSTRAINTS,
//     where the model stops;
//   - a statement that failed aborts its transaction (PostgreSQL rolls a
//     transaction back at its first error), which takes every lock and
//     write of it back: whatever the check did leaves nothing behind
//     (pgAborted).
//
// SQLite's CASCADE and SET NULL go the same way (pgRestrict, pgAction),
// without locks or snapshots to weigh: one writer at a time, whose view
// is the latest ("SQLite Foreign Key Support" 4.3).
//
// The rest halts by name: SET CONSTRAINTS, SET DEFAULT, an action whose
// writes set off other keys' actions, a child's check that waited while
// a row with its key was written (measured at RR: 40001 even for a
// non-key UPDATE it waited for), a parent's check over a child row
// committed while it waited by a transaction it did not wait for, a
// COMMIT that waited, a child row another transaction holds locked, NO ACTION's look for another parent row with the key
// (ri_Check_Pk_Match), a self-reference, key columns of different types.

// checkLock is the row lock a foreign key's check takes on the parent row
// it finds: InnoDB's shared lock, PostgreSQL's FOR KEY SHARE; lockNone
// where the model does not follow the check.
func (e *Engine) checkLock() strength {
	switch {
	case e.rules.ForeignKeys == FKInnoDB:
		return lockShare
	case e.rules.ForeignKeys == FKPostgres && e.rules.KeyLocks:
		return lockKeyShare
	}
	return lockNone
}

// pgAborted reports whether statement st failed on PostgreSQL, which then
// aborts its transaction: "ERROR: current transaction is aborted"
// follows for every later statement, and nothing the failed statement or
// its checks did remains.
func (e *Engine) pgAborted(t *Txn, st *Stmt) bool {
	return e.rules.FailureAborts && st.Err != nil && (st.Err.RolledBack || !t.Explicit)
}

// pgCheckSees reports whether the check of a child's write sees parent row
// r, found in its latest version with key, with that key (always true
// outside PostgreSQL, whose check at READ COMMITTED reads the latest
// version). At REPEATABLE READ and SERIALIZABLE the check reads the
// transaction's snapshot: r must be there with the key and have been
// changed since by non-key UPDATEs only (FOR NO KEY UPDATE, which FOR KEY
// SHARE does not conflict with); a DELETE or a key UPDATE since makes the
// check fail (40001), and a row the snapshot does not hold is not found.
func (e *Engine) pgCheckSees(t *Txn, st *Stmt, r *Row) bool {
	if e.rules.ForeignKeys != FKPostgres || e.rules.Source[KindInsert] != SnapTxn || t.Snapshot < 0 || own(r, t) != nil {
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
		if !after || !live(v, st.End) || v.At >= st.End {
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
	act := k.action(s)
	sqlite := e.rules.ForeignKeys == FKSQLite && !e.rules.RowLocks && !k.Deferrable && e.sameKeyTypes(k)
	if !e.pgKey(k) && !sqlite {
		return false
	}
	child := e.schema[k.child]
	switch act {
	case sqlast.RefDefault, sqlast.RefNoAction, sqlast.RefRestrict:
		return !sqlite // SQLite's is lockFreeCheck
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

// pgKey reports whether the model follows PostgreSQL's checks of key k:
// two tables whose key columns have the same types (the model compares
// their values as printed), not a self-reference (a statement would write
// the rows its check reads).
func (e *Engine) pgKey(k *foreignKey) bool {
	return e.rules.ForeignKeys == FKPostgres && e.rules.KeyLocks && e.sameKeyTypes(k)
}

// sameKeyTypes reports whether key k joins two tables (not a
// self-reference: a statement would write the rows its check reads) on
// columns of the same types, whose values the model can compare as
// printed.
func (e *Engine) sameKeyTypes(k *foreignKey) bool {
	if strings.EqualFold(k.child, k.parent) || len(k.cols) != len(k.refCols) {
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
	return true
}

// pgChild reports whether the model follows key k's check of s, a write
// of the child's rows (an INSERT of any form, an UPDATE): childCheck.
func (e *Engine) pgChild(k *foreignKey, s sqlast.Stmt) bool {
	switch s := s.(type) {
	case *sqlast.Insert:
		return !s.Replace && e.pgKey(k)
	case *sqlast.Update:
		return e.pgKey(k)
	}
	return false
}

// fkPart is a foreign key whose check or action the engine makes once a
// statement has run: of the child's write (child) or of the parent's.
type fkPart struct {
	k     *foreignKey
	child bool
	// atCommit: SQLite's deferred key, checked at the autocommit
	// statement's own COMMIT (sqliteCommitCheck).
	atCommit bool
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
	for _, part := range ks {
		k := part.k
		if part.atCommit {
			if dev := e.sqliteCommitCheck(t, st, k, strings.ToUpper(keywordOf(st.SQL))); dev != nil {
				return dev
			}
			continue
		}
		if part.child {
			if dev := e.childCheck(t, st, k); dev != nil || e.halted != "" {
				return dev
			}
			continue
		}
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
		if k.Deferred() && t.Explicit && (act == sqlast.RefDefault || act == sqlast.RefNoAction) {
			// Checked at COMMIT; the actions and RESTRICT never wait
			// for it (CREATE TABLE: "Referential actions other than the
			// NO ACTION check cannot be deferred").
			for _, key := range removed {
				t.fkDeferred = append(t.fkDeferred, fkDeferred{child: k.child, parent: k.parent, cols: k.cols, key: key})
			}
			continue
		}
		for i, key := range removed {
			for _, r := range e.h.rows[k.parent] {
				if r == written[i] {
					continue
				}
				for _, v := range current(r, t, st.End) {
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
						Rule: e.rules.Rule("foreign-key-restrict", "a DELETE of a referenced row, or an UPDATE of its referenced key, fails while a row of the referencing table that the check's latest snapshot shows still references it (NO ACTION, RESTRICT)"),
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
	if seen.Txn != t && e.rules.ForeignKeys == FKPostgres && e.rules.Source[KindInsert] == SnapTxn {
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
	// Another transaction's uncommitted version is not in the check's
	// snapshot; the committed one it replaces is, and the check's FOR KEY
	// SHARE lock on it waits for a DELETE or key UPDATE (FOR UPDATE), as
	// for a SELECT … FOR UPDATE.
	if refs(late) {
		if o, _ := lockedBy(cr, t, lockKeyShare, st.End, e.txns, false, false); o != nil {
			e.halt("not modelled: foreign-key", "a row of %s that references the key is locked by transaction T%d: the check waits for it (not modelled): %s", cr.Table, o.ID, st.SQL)
			return nil, false
		}
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
// references nothing: PostgreSQL's MATCH SIMPLE; InnoDB: "If any of the
// foreign key fields in entry is SQL NULL, we suppress the foreign key
// check", row_ins_check_foreign_constraint).
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

// childCheck follows key k's check of the child rows statement st of t
// just wrote (an INSERT, an UPDATE that changed the referencing columns,
// or of a row t inserted: RI_FKey_fk_upd_check_required): the check finds
// the parent row with the key and locks it FOR KEY SHARE (pgParentOf).
// A successful statement whose key no parent row holds in any version
// must have failed (23503); one the model cannot place stops it. A
// DEFERRABLE INITIALLY DEFERRED key checks at COMMIT instead: the rows
// wait in t.fkDeferred (deferredCheck); an autocommit statement's COMMIT
// follows at once, so its check is as an immediate key's.
func (e *Engine) childCheck(t *Txn, st *Stmt, k *foreignKey) *Deviation {
	cpos := positions(e.schema[k.child], k.cols)
	if cpos == nil {
		e.halt("not modelled: foreign-key", "the foreign key of %s referencing %s: a key column is not found", k.child, k.parent)
		return nil
	}
	for _, cr := range e.h.rows[k.child] {
		n := len(cr.Versions)
		if n == 0 || cr.Versions[n-1].Txn != t || cr.Versions[n-1].At != e.h.now {
			continue
		}
		v := cr.Versions[n-1]
		key := pick(v.Values, cpos)
		if v.Deleted || key == nil {
			continue
		}
		if old := visible(v.changed()); old != nil && old.Txn != t && rowKey(pick(old.Values, cpos)) == rowKey(key) {
			continue // the key did not change: no check
		}
		if k.Deferred() && t.Explicit {
			t.fkDeferred = append(t.fkDeferred, fkDeferred{child: k.child, parent: k.parent, cols: k.cols, row: cr.ID})
			continue
		}
		r, ok := e.pgParentOf(t, st, k, key)
		switch {
		case !ok:
			e.halt("not modelled: foreign-key", "the foreign key check of %s's row %v in %s: which parent row it finds, or whether it waits, is not decided: %s", k.child, v.Values, k.parent, st.SQL)
			return nil
		case r == nil:
			return e.danglingDev(st, k, v, key, strings.ToUpper(keywordOf(st.SQL)))
		}
		if t.locks == nil {
			t.locks = map[*Row]strength{}
		}
		t.locks[r] = max(t.locks[r], e.checkLock())
	}
	return nil
}

// danglingDev is the deviation of a statement (or COMMIT) that succeeded
// although child row version v holds key, which no row of the parent
// holds in any version.
func (e *Engine) danglingDev(st *Stmt, k *foreignKey, v *Version, key target.Row, kind string) *Deviation {
	d := &Deviation{Kind: "missing-error", Verdict: verdict.Bug, Stmt: st, StmtKind: kind, Table: k.child,
		Rule: e.rules.Rule("foreign-key-check", "a write of a referencing row whose key no referenced row holds fails, at the statement's end or, for a deferred key, at COMMIT (23503; 40001 at REPEATABLE READ and SERIALIZABLE where the transaction's snapshot still holds the row)"),
		Text: fmt.Sprintf("connection %d's %s succeeded, but row %v of %s references the key %v, which no row of %s holds; %s documents an error (23503, or a serialization failure)",
			st.Conn, kind, v.Values, k.child, key, k.parent, e.rules.DBMS)}
	e.halt(deviated, "stopped at the first deviation")
	return d
}

// pgParentOf is the parent row the check of a child row with key, run by
// st of t, finds and locks FOR KEY SHARE, and true; nil and true when no
// row of the parent holds the key in its latest version, committed or t's
// own (the check fails: 23503, or 40001 at REPEATABLE READ where the
// snapshot still has it); false when the model cannot tell: a row with
// the key was written while st waited (by other than the lock holder the
// check waited for, at READ COMMITTED), another transaction holds a lock
// the check conflicts with, or, at REPEATABLE READ and SERIALIZABLE, the
// transaction's snapshot does not show the row as it is (pgCheckSees).
func (e *Engine) pgParentOf(t *Txn, st *Stmt, k *foreignKey, key target.Row) (*Row, bool) {
	ppos := positions(e.schema[k.parent], k.refCols)
	if ppos == nil {
		return nil, false
	}
	holds := func(v *Version) bool { return v != nil && !v.Deleted && rowKey(pick(v.Values, ppos)) == rowKey(key) }
	// A statement that waited checks once it holds its other locks: the
	// rows as they are at its end, provided none was written while it
	// waited. A writer that held one locked against the check, which the
	// check then waited for, ended before it (its change is seen, or its
	// rollback); one whose lock the check does not conflict with (a
	// non-key UPDATE) changed no key.
	at := st.Start
	if st.Blocked() {
		at = st.End
	}
	var found *Row
	gone := true // every row that held the key lost it for good
	for _, r := range e.h.rows[k.parent] {
		held := false
		// At READ COMMITTED the check waits for a transaction holding the
		// row locked against it when st started, and then reads what that
		// one left; at REPEATABLE READ a row changed while it waited fails
		// it (40001, measured on 15.18), which the model does not follow.
		holder, _ := lockedBy(r, t, lockKeyShare, st.Start, e.txns, false, false)
		waitedFor := holder != nil && !holder.activeAt(st.End) && e.rules.Source[KindInsert] != SnapTxn
		for _, v := range r.Versions {
			if !holds(v) && !holds(v.Prev) {
				continue // no version of the key
			}
			if st.Blocked() && v.At >= st.Start && v.At < st.End && !(waitedFor && v.Txn == holder) {
				return nil, false // written while st waited
			}
			held = held || holds(v) && live(v, st.End)
		}
		lv := latest(r, at)
		if holds(lv) {
			if found != nil {
				return nil, false
			}
			found = r
		}
		if held && (lv == nil || lv.Txn != t && !lv.Txn.committedBefore(at)) {
			// Another's uncommitted change: the check meets the row's
			// committed version and may wait for it.
			gone = false
		}
	}
	if found == nil {
		// No row holds the key now: at READ COMMITTED the check finds
		// none (23503); at REPEATABLE READ it finds none either, or the
		// snapshot's version of a row deleted or key-updated since (40001).
		if gone {
			return nil, true
		}
		return nil, false
	}
	if o, _ := lockedBy(found, t, lockKeyShare, st.End, e.txns, false, false); o != nil {
		return nil, false
	}
	if o, _ := lockedBy(found, t, lockKeyShare, st.Start, e.txns, false, false); o != nil && !st.Blocked() {
		return nil, false
	}
	if !e.pgCheckSees(t, st, found) {
		return nil, false
	}
	return found, true
}

// fkDeferred is a check a DEFERRABLE INITIALLY DEFERRED key makes at
// COMMIT (docs 15, CREATE TABLE: "INITIALLY DEFERRED … checked only at the
// end of the transaction"): of child row row's key (parent nil key), or,
// for NO ACTION, that no child row references key, which a parent's
// statement removed. The key is named by its tables and columns: the
// engine's foreignKey values are made afresh for each statement.
type fkDeferred struct {
	child, parent string
	cols          []string
	row           int
	key           target.Row
}

// deferredCheck judges t's COMMIT, st, which ran the deferred checks of
// t.fkDeferred. A COMMIT that failed is not judged (nothing of t
// remains); a successful one must have found each child row's parent key
// (pgParentOf, as a child's statement would at its end; the transaction
// snapshot at REPEATABLE READ, measured: a parent deleted since fails the
// COMMIT with 40001) and no child row referencing a removed key (with the
// latest snapshot, as restrictCheck). Where that is not decided, or the
// COMMIT waited (for a parent row's lock), the model stops.
func (e *Engine) deferredCheck(t *Txn, st *Stmt) *Deviation {
	checks := t.fkDeferred
	t.fkDeferred = nil
	if len(checks) > 0 && e.rules.ForeignKeys == FKSQLite {
		return e.sqliteDeferredCommit(t, st, checks)
	}
	if st.Err != nil || len(checks) == 0 {
		return nil
	}
	if st.Blocked() {
		e.halt("not modelled: deferred-constraint", "connection %d's COMMIT, which runs deferred foreign key checks, waited (not modelled)", st.Conn)
		return nil
	}
	for _, c := range checks {
		var k *foreignKey
		for _, fk := range e.foreignKeys() {
			if fk.child == c.child && fk.parent == c.parent && slices.Equal(fk.cols, c.cols) {
				k = &fk
				break
			}
		}
		if k == nil {
			e.halt("not modelled: deferred-constraint", "a deferred foreign key of %s is not found at COMMIT", c.child)
			return nil
		}
		if c.key == nil {
			var cr *Row
			for _, r := range e.h.rows[k.child] {
				if r.ID == c.row {
					cr = r
				}
			}
			if cr == nil {
				continue
			}
			v := visible(own(cr, t))
			key := pick(v.valuesOrNil(), positions(e.schema[k.child], k.cols))
			if v == nil || key == nil {
				continue // deleted or set NULL since: the check skips it
			}
			r, ok := e.pgParentOf(t, st, k, key)
			switch {
			case !ok:
				e.halt("not modelled: deferred-constraint", "the deferred foreign key check of %s's row %v at COMMIT: which parent row it finds is not decided", k.child, v.Values)
				return nil
			case r == nil:
				return e.danglingDev(st, k, v, key, "COMMIT")
			}
			continue
		}
		if dev := e.deferredRestrict(t, st, k, c.key); dev != nil || e.halted != "" {
			return dev
		}
	}
	return nil
}

func (v *Version) valuesOrNil() target.Row {
	if v == nil {
		return nil
	}
	return v.Values
}

// deferredRestrict is the COMMIT-time check of a deferred NO ACTION key
// whose referenced key t removed: no child row the latest snapshot shows
// (or t's own) may hold it. Another parent row with the key lets the
// check pass (ri_Check_Pk_Match), which the model does not follow.
func (e *Engine) deferredRestrict(t *Txn, st *Stmt, k *foreignKey, key target.Row) *Deviation {
	cpos, ppos := positions(e.schema[k.child], k.cols), positions(e.schema[k.parent], k.refCols)
	for _, r := range e.h.rows[k.parent] {
		for _, v := range current(r, t, st.End+1) {
			if v := visible(v); v != nil && rowKey(pick(v.Values, ppos)) == rowKey(key) {
				e.halt("not modelled: deferred-constraint", "a row of %s holds the key %v again at COMMIT: NO ACTION's check may pass (not modelled)", k.parent, key)
				return nil
			}
		}
	}
	for _, cr := range e.h.rows[k.child] {
		refs := func(v *Version) bool {
			v = visible(v)
			return v != nil && rowKey(pick(v.Values, cpos)) == rowKey(key)
		}
		seen, ok := e.checkSees(t, st, cr, nil, refs)
		if !ok {
			return nil
		}
		if refs(seen) {
			d := &Deviation{Kind: "missing-error", Verdict: verdict.Bug, Stmt: st, StmtKind: "COMMIT", Table: k.parent,
				Rule: e.rules.Rule("foreign-key-restrict", "a DELETE of a referenced row, or an UPDATE of its referenced key, fails while a row of the referencing table that the check's latest snapshot shows still references it (NO ACTION, RESTRICT); a deferred key's check runs at COMMIT"),
				Text: fmt.Sprintf("connection %d's COMMIT succeeded, but row %v of %s, which its deferred foreign key check sees, references the key %v the transaction removed from %s; %s documents error 23503",
					st.Conn, seen.Values, k.child, key, k.parent, e.rules.DBMS)}
			e.halt(deviated, "stopped at the first deviation")
			return d
		}
	}
	return nil
}

// current are the versions of r that may stand for it at at, for t: its
// own (or, without one, the latest committed) and another transaction's
// uncommitted latest one.
func current(r *Row, t *Txn, at int) []*Version {
	mine := own(r, t)
	if mine == nil || !live(mine, at) {
		mine = committed(r, at)
	}
	out := []*Version{mine}
	if lv := latest(r, at); lv != nil && lv.Txn != t {
		out = append(out, lv)
	}
	return out
}

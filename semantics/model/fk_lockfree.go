package model

import (
	"slices"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// Foreign keys where nothing locks rows (SQLite: one writer at a time,
// whose view is the latest, Isolation In SQLite). An immediate key's check
// only decides whether its statement fails (lockFreeCheck); a deferred
// key's violations are counted until COMMIT, which then fails
// (sqliteDeferred, sqliteDeferredCommit, sqliteCommitCheck: "SQLite
// Foreign Key Support" 4.2). The actions, CASCADE and SET NULL, are the
// trigger-like writes of fk_trigger.go (pgRestrict, pgAction).

// lockFreeCheck reports whether foreign key k's part in statement s (what
// affects said) decides only whether s fails, which the model does not
// judge (a failed statement had no effect; a successful one did what it
// does without the key): where nothing locks rows (SQLite: a writer has
// the database to itself, isolation.html), an immediate key's check of a
// child's write, or of a parent's DELETE or key UPDATE that the key
// restricts (NO ACTION, RESTRICT). "If a statement modifies the contents
// of the database so that an immediate foreign key constraint is in
// violation at the conclusion the statement, an exception is thrown and
// the effects of the statement are reverted" (sqlite.org
// foreignkeys.html, 4.2 "Deferred Foreign Key Constraints"). An action
// (CASCADE, SET NULL, SET DEFAULT) writes other rows, and a deferred key
// fails the COMMIT: neither is modelled.
func (e *Engine) lockFreeCheck(k *foreignKey, s sqlast.Stmt, what string) bool {
	if e.rules.RowLocks || k.Deferrable {
		return false
	}
	switch what {
	case "child":
		return true
	case "parent":
		switch k.action(s) {
		case sqlast.RefDefault, sqlast.RefNoAction, sqlast.RefRestrict:
			return true
		}
	}
	return false
}

// sqliteDeferred decides SQLite's part of a DEFERRABLE key k in statement
// s (what: affects): ok when the model follows it, and commit when the
// key is then checked at s's own COMMIT (an autocommit statement). A key
// that is INITIALLY IMMEDIATE is checked at each statement's end, as an
// immediate one (lockFreeCheck; PRAGMA defer_foreign_keys, which would
// defer it, stops the model as a statement it does not know); RESTRICT is
// never deferred ("the RESTRICT action processing happens as soon as the
// field is updated", "SQLite Foreign Key Support" 4.3). A deferred
// key's violations are counted until COMMIT, which then fails (4.2): the
// child's write and the parent's NO ACTION delete or key change wait in
// t.fkDeferred (sqliteDeferredCommit). Its actions are not followed.
func (e *Engine) sqliteDeferred(t *Txn, st *Stmt, k *foreignKey, s sqlast.Stmt, what string) (commit, ok bool) {
	if e.rules.ForeignKeys != FKSQLite || e.rules.RowLocks || !k.Deferrable || !e.sameKeyTypes(k) {
		return false, false
	}
	act := k.action(s)
	restrict := act == sqlast.RefDefault || act == sqlast.RefNoAction || act == sqlast.RefRestrict
	switch {
	case what != "child" && (what != "parent" || !restrict):
		return false, false
	case !k.Deferred() || what == "parent" && act == sqlast.RefRestrict:
		return false, true
	case st.Err != nil:
		return false, true // reverted: it counted nothing
	case !t.Explicit:
		return true, true
	}
	t.fkDeferred = append(t.fkDeferred, fkDeferred{child: k.child, parent: k.parent, cols: k.cols, row: -1})
	return false, true
}

// sqliteDeferredCommit judges the COMMIT st of t, which wrote rows a
// deferred key checks: one that succeeded must leave no violation. A
// COMMIT that fails leaves the transaction open (SQLite Foreign Key
// Support 4.2: "the attempt to COMMIT fails"; the transaction can still
// be committed or rolled back), and the executor rolls it back at once
// (executor.record): the transaction ends uncommitted, as the caller
// records, and the model follows the case on. Whether the COMMIT had to
// fail is not judged, as no statement's error is yet.
func (e *Engine) sqliteDeferredCommit(t *Txn, st *Stmt, checks []fkDeferred) *Deviation {
	if st.Err != nil {
		return nil
	}
	done := map[string]bool{}
	for _, c := range checks {
		id := c.child + "\x00" + c.parent + "\x00" + strings.Join(c.cols, ",")
		if done[id] {
			continue
		}
		done[id] = true
		for _, fk := range e.foreignKeys() {
			if fk.child == c.child && fk.parent == c.parent && slices.Equal(fk.cols, c.cols) {
				if dev := e.sqliteCommitCheck(t, st, &fk, "COMMIT"); dev != nil || e.halted != "" {
					return dev
				}
			}
		}
	}
	return nil
}

// sqliteCommitCheck is SQLite's check of deferred key k when t commits
// (at st, a COMMIT or an autocommit statement): in the state t commits,
// its own rows over the latest committed ones (the one writer's view),
// every child row's key is held by a parent row; else the COMMIT must
// have failed.
func (e *Engine) sqliteCommitCheck(t *Txn, st *Stmt, k *foreignKey, kind string) *Deviation {
	cpos, ppos := positions(e.schema[k.child], k.cols), positions(e.schema[k.parent], k.refCols)
	if cpos == nil || ppos == nil {
		e.halt("not modelled: deferred-constraint", "the deferred foreign key of %s referencing %s: a key column is not found", k.child, k.parent)
		return nil
	}
	view := func(r *Row) *Version {
		if v := own(r, t); v != nil && live(v, st.End) {
			return visible(v)
		}
		return visible(committed(r, st.Start))
	}
	keys := map[string]bool{}
	for _, r := range e.h.rows[k.parent] {
		if v := view(r); v != nil {
			if key := pick(v.Values, ppos); key != nil {
				keys[rowKey(key)] = true
			}
		}
	}
	for _, r := range e.h.rows[k.child] {
		v := view(r)
		if v == nil {
			continue
		}
		if key := pick(v.Values, cpos); key != nil && !keys[rowKey(key)] {
			return e.danglingDev(st, k, v, key, kind)
		}
	}
	return nil
}

package model

import (
	"github.com/txlab/txlab/testcase"
)

// savepointStep applies a savepoint statement of explicit transaction t
// that succeeded. SAVEPOINT replaces an older one of the same name;
// ROLLBACK TO SAVEPOINT undoes the versions t wrote since, keeping the
// savepoint and dropping later ones; RELEASE drops it and later ones.
func (e *Engine) savepointStep(t *Txn, st *Stmt, op testcase.SavepointOp, name string) {
	find := func() int {
		for i := len(t.savepoints) - 1; i >= 0; i-- {
			if t.savepoints[i].name == name {
				return i
			}
		}
		return -1
	}
	switch op {
	case testcase.SavepointSet:
		if i := find(); i >= 0 {
			t.savepoints = append(t.savepoints[:i:i], t.savepoints[i+1:]...)
		}
		locks := map[int]strength{}
		for r, x := range t.locks {
			locks[r.ID] = x
		}
		t.savepoints = append(t.savepoints, savepoint{name: name, vid: e.h.nextVID, locks: locks, tables: len(t.tableLocks), at: st.End, first: !t.ran})
	case testcase.SavepointRelease:
		if i := find(); i >= 0 {
			t.savepoints = t.savepoints[:i:i]
		}
	case testcase.SavepointRollback:
		i := find()
		if i < 0 {
			// It succeeded, so the DBMS knew the savepoint: one the model
			// did not follow.
			e.halt("savepoint unknown: ROLLBACK TO", "connection %d rolled back to savepoint %s, which the model does not know", st.Conn, name)
			return
		}
		e.rollbackTo(t, st, t.savepoints[i])
		t.savepoints = t.savepoints[: i+1 : i+1]
	}
}

// rollbackTo undoes what t did after savepoint sp, at the end of st: the
// versions it wrote since move to a part of t that aborts then (for
// everyone reading after it, they never happened, and the locks they
// imply end then), and so do the locks its locking reads took since,
// unless the rules keep them (Rules.SavepointLocks).
func (e *Engine) rollbackTo(t *Txn, st *Stmt, sp savepoint) {
	// It keeps t's number: what a person reads as T<n> is the transaction.
	undone := &Txn{ID: t.ID, Conn: t.Conn, Explicit: true, Snapshot: t.Snapshot, SnapshotUntil: t.SnapshotUntil, pinned: t.pinned,
		CommitAt: never, AbortAt: st.End, rules: t.rules, noLocks: t.noLocks}
	keep := e.rulesOf(t).SavepointLocks
	moved := false
	for _, name := range e.h.tables {
		for _, r := range e.h.rows[name] {
			first := true
			for _, v := range r.Versions {
				if v.Txn != t || v.ID < sp.vid {
					continue
				}
				v.Txn, moved = undone, true
				// The row's lock: InnoDB keeps it unless the undo removes
				// a row inserted after the savepoint; TiDB keeps every one.
				inserted := v.Prev == nil || v.Prev.Deleted && v.Prev.Txn != t
				if first && !t.noLocks && (keep == SavepointKeeps || keep == SavepointKeepsButInserts && !inserted) {
					if t.locks == nil {
						t.locks, t.kept = map[*Row]strength{}, map[*Row]bool{}
					} else if t.kept == nil {
						t.kept = map[*Row]bool{}
					}
					t.locks[r], t.kept[r] = lockUpdate, true
				}
				first = false
			}
		}
	}
	if keep != SavepointReleases && !t.noLocks {
		// The row locks its locking reads took since stay too: a
		// statement that did not wait for one is named as one that did
		// not wait for a kept lock (Rules.SavepointUnlock).
		for r, x := range t.locks {
			if _, _, since := sp.lockSince(r, x); since {
				if t.kept == nil {
					t.kept = map[*Row]bool{}
				}
				t.kept[r] = true
			}
		}
	}
	if sp.first && e.rulesOf(t).SavepointReadView != nil {
		t.viewDropAt = st.End
	}
	if keep == SavepointReleases {
		// Table locks too (PostgreSQL 15 docs 13.3: a lock acquired
		// after a savepoint is released when it is rolled back to).
		t.tableLocks = t.tableLocks[:sp.tables:sp.tables]
		e.releaseTableLocks(t.Conn, sp.at, st.End)
		// A lock taken since is released, and one strengthened since goes
		// back to what it was at the savepoint (the stronger lock was the
		// subtransaction's).
		for r, x := range t.locks {
			if before, held, since := sp.lockSince(r, x); since {
				if undone.locks == nil {
					undone.locks = map[*Row]strength{}
				}
				undone.locks[r] = x
				if held {
					t.locks[r] = before
				} else {
					delete(t.locks, r)
				}
			}
		}
		moved = moved || len(undone.locks) > 0
	}
	if moved {
		e.txns = append(e.txns, undone)
		e.savepointUndone = true
	}
}

// lockSince says whether the transaction's lock x on row r was taken or
// strengthened after savepoint sp, and what it held on r at sp.
func (sp savepoint) lockSince(r *Row, x strength) (before strength, held, since bool) {
	before, held = sp.locks[r.ID]
	return before, held, !held || x > before
}

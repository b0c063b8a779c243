package model

import "slices"

// Rows whose lock the documentation leaves open.
//
// A PostgreSQL READ COMMITTED UPDATE or DELETE that finds a row of its
// snapshot changed by a transaction that committed while it waited
// re-checks its WHERE on the row's latest version (docs 13.2.1). When the
// re-check fails the row is left as it is; whether the write still holds
// the row's lock the manual does not say (the source locks the latest
// version before the re-check: nodeModifyTable.c, ExecUpdate/ExecDelete,
// table_tuple_lock then EvalPlanQual; measured on 15.18: a later SKIP
// LOCKED read skips the row). The model leaves such a row's lock open: a
// SKIP LOCKED read that meets it is not decided, and no statement is
// required to wait for it.

// recheckLeft records the rows of a Recheck write's view whose snapshot
// version (the gate) matched and whose latest version did not.
func (e *Engine) recheckLeft(t *Txn, tv *tableView, pick []int, matched map[int]bool) {
	for i, os := range tv.opts {
		o := os[pick[i]]
		if o.v == nil || o.gate == nil || o.gate == o.v || !matched[o.gate.ID] || matched[o.v.ID] {
			continue
		}
		if t.maybeLocked == nil {
			t.maybeLocked = map[*Row]bool{}
		}
		t.maybeLocked[tv.rows[i]] = true
	}
}

// maybeLockedBy reports whether a transaction other than t, active at at,
// may hold r's lock without the documentation saying so.
func maybeLockedBy(r *Row, t *Txn, at int, txns []*Txn) bool {
	for _, o := range txns {
		if o != t && o.activeAt(at) && !o.noLocks && o.maybeLocked[r] {
			return true
		}
	}
	return false
}

// failedLeft records, for a statement that failed inside a transaction
// that goes on, every row of the tables it reads or writes: "Locks are not
// released in a rollback of a single SQL statement" (MySQL 8.0 manual
// 17.20.5, InnoDB Error Handling), and which rows it locked before it
// failed is not known.
func (e *Engine) failedLeft(t *Txn, s *stmtInfo) {
	if !s.kind.Locking() || !e.rules.RowLocks {
		return
	}
	for _, name := range slices.Concat([]string{s.table}, s.reads, s.subs) {
		for _, r := range e.h.rows[name] {
			if t.maybeLocked == nil {
				t.maybeLocked = map[*Row]bool{}
			}
			t.maybeLocked[r] = true
		}
	}
}

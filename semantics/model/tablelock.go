package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/semantics/rules"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// tableLock is a table-level lock a transaction holds: its mode, and the
// schedule position from which it certainly holds it.
type tableLock struct {
	table string
	mode  sqlast.TableLockMode
	at    int
}

// lockRequest is a LOCK TABLE statement as the engine met it, failed or
// not: while its transaction runs (or it waits in the lock queue) others'
// statements on its tables may wait for it.
type lockRequest struct {
	conn       int
	start, end int
	tables     []string
	mode       sqlast.TableLockMode
	failed     bool
	// released is where a ROLLBACK TO SAVEPOINT released its lock (-1:
	// none did).
	released int
}

// tableModes are the table locks a statement asks for, at least (or, with
// most, at most): ACCESS SHARE on every table it references, ROW SHARE on
// the tables a locking clause applies to (those of its top-level FROM;
// those of a derived table or a subquery may take it too, which only most
// counts), ROW EXCLUSIVE on a write's target.
func tableModes(st sqlast.Stmt, most bool) map[string]sqlast.TableLockMode {
	out := map[string]sqlast.TableLockMode{}
	for _, name := range tablesIn(st) {
		out[name] = sqlast.AccessShare
	}
	switch st := st.(type) {
	case *sqlast.SelectStmt:
		if st.Lock != sqlast.LockNone {
			for tb := range outerTables(st.Query) {
				out[tb.Name] = sqlast.RowShare
			}
			if most {
				for name := range out {
					out[name] = sqlast.RowShare
				}
			}
		}
	case *sqlast.Update:
		out[st.Table] = sqlast.RowExclusive
	case *sqlast.Delete:
		out[st.Table] = sqlast.RowExclusive
	case *sqlast.Insert:
		out[st.Table] = sqlast.RowExclusive
	case *sqlast.Merge:
		out[st.Table] = sqlast.RowExclusive
	}
	return out
}

// tableLockHolder returns another transaction active at at that holds a
// lock on table, taken before at, conflicting with mode (Table 13.2).
func (e *Engine) tableLockHolder(t *Txn, table string, mode sqlast.TableLockMode, at int) (*Txn, sqlast.TableLockMode) {
	for _, o := range e.txns {
		if o == t || !o.activeAt(at) {
			continue
		}
		for _, l := range o.tableLocks {
			if l.table == table && l.at < at && mode.Conflicts(l.mode) {
				return o, l.mode
			}
		}
	}
	return nil, 0
}

// tableLockRule is the rule of a statement that did not wait for a
// conflicting table lock.
func (e *Engine) tableLockRule() verdict.Rule {
	r := e.rules.Rule("table-lock-wait", fmt.Sprintf("a statement must wait for (or, with NOWAIT, fail on) a table lock another transaction holds in a conflicting mode, as %s documents", e.rules.DBMS))
	if !strings.Contains(r.Source, rules.SrcPGTableLocks) {
		r.Source += "; " + rules.SrcPGTableLocks
	}
	return r
}

// tableLocksFor judges the table locks of data statement parsed of t (its
// minimal modes, tableModes): one that did not wait although another
// transaction held a conflicting table lock deviates; one that waited
// while another transaction's LOCK TABLE held or asked for a lock on a
// table it reads in a mode that conflicts with its own stops the engine
// (when a statement that waited for a table lock takes its snapshot is
// not documented; an INSERT … VALUES reads no snapshot; a request that
// does not conflict neither waits for the lock nor queues behind it);
// else the statement holds its locks from its end. It reports whether
// the statement is judged on.
func (e *Engine) tableLocksFor(t *Txn, st *Stmt, parsed sqlast.Stmt) (*Deviation, bool) {
	modes, most := tableModes(parsed, false), tableModes(parsed, true)
	kind := testcase.Classify(st.SQL).Signature()
	ins, isInsert := parsed.(*sqlast.Insert)
	readsNothing := isInsert && ins.Select == nil && ins.OnConflict == nil && !ins.Replace && len(modes) == 1
	switch {
	case st.Blocked() && (readsNothing || st.Err != nil):
		// Nothing to judge of its view: it read no snapshot, or failed.
	case st.Blocked():
		// The point from which no LOCK TABLE of another transaction that
		// the statement queued behind holds or asks for its lock.
		// A request made after the statement's queues behind it, unless
		// its transaction holds a conflicting lock already: an earlier
		// LOCK TABLE, released no sooner.
		release := -1
		for _, l := range e.lockRequests {
			if l.conn == st.Conn || l.start > st.Start || e.connEndedBetween(l.conn, l.end, st.Start) || !l.conflicts(most) ||
				l.released >= 0 && l.released < st.Start {
				continue
			}
			rel := l.end // a request that failed left the queue then
			switch {
			case l.released >= 0:
				rel = l.released
			case !l.failed:
				rel = e.connEndAfter(l.conn, l.end)
			}
			if l.failed && rel < st.Start {
				continue
			}
			if rel < 0 || rel >= st.End {
				// Still held or asked for when it ended: it did not wait
				// for the lock to go, or only until PostgreSQL's deadlock
				// check moved it ahead in the queue, at a point the model
				// does not know.
				e.halt("not modelled: lock-table", "connection %d's %s waited while connection %d's LOCK TABLE held or asked for a conflicting lock on its tables", st.Conn, st.SQL, l.conn)
				return nil, false
			}
			release = max(release, rel)
		}
		if release >= 0 {
			// Whether a statement that waited for a table lock reads a
			// snapshot taken when it started or one taken once it has
			// the lock (PostgreSQL 15 takes the statement's snapshot
			// after parse analysis has locked its tables; its docs say
			// "as of the instant the query begins to run") is not
			// documented, nor when, after the release, it runs again:
			// the waiters a release wakes take their snapshots as they
			// get to run, and a transaction that commits meanwhile may
			// be in one's view (a 10-minute campaign's false bug). Each
			// such point is a replay of its own.
			at := e.snapshotPoints(st, release)
			if c := e.choose(len(at)); c > 0 {
				st.Start = at[c]
			}
		}
	case st.Err == nil:
		for _, tb := range slices.Sorted(func(yield func(string) bool) {
			for k := range modes {
				if !yield(k) {
					return
				}
			}
		}) {
			if holder, held := e.tableLockHolder(t, tb, modes[tb], st.Start); holder != nil {
				d := &Deviation{Kind: "incorrect-blocking", Verdict: verdict.Bug, Rule: e.tableLockRule(), Stmt: st, StmtKind: kind, Table: tb,
					Text: fmt.Sprintf("connection %d's %s did not wait for table %s, which transaction T%d holds in %s mode; it takes %s, which conflicts with it",
						st.Conn, kind, tb, holder.ID, held, modes[tb])}
				e.halt(deviated, "stopped at the first deviation")
				return d, false
			}
		}
	}
	if st.Err == nil {
		for tb, m := range modes {
			t.tableLocks = append(t.tableLocks, tableLock{table: tb, mode: m, at: st.End})
		}
	}
	return nil, true
}

// lockTableStep judges a LOCK TABLE of t: one that succeeded without
// waiting although another transaction held a conflicting lock deviates
// (with NOWAIT it had to fail); one that succeeded holds its lock from its
// end. It takes no snapshot and reads no rows.
func (e *Engine) lockTableStep(t *Txn, st *Stmt, lt *sqlast.LockTable) *Deviation {
	e.lockRequests = append(e.lockRequests, lockRequest{conn: st.Conn, start: st.Start, end: st.End, tables: lt.Tables, mode: lt.Mode, failed: st.Err != nil, released: -1})
	if st.Err != nil {
		if st.Err.RolledBack || !t.Explicit {
			e.end(t, st.End, false)
		}
		return nil
	}
	if !t.Explicit {
		// PostgreSQL refuses LOCK TABLE outside a transaction block.
		e.halt("not modelled: lock-table", "LOCK TABLE outside a transaction succeeded: %s", st.SQL)
		return nil
	}
	if !st.Blocked() {
		for _, tb := range lt.Tables {
			holder, held := e.tableLockHolder(t, tb, lt.Mode, st.Start)
			if holder == nil {
				continue
			}
			d := &Deviation{Kind: "incorrect-blocking", Verdict: verdict.Bug, Rule: e.tableLockRule(), Stmt: st, StmtKind: "LOCK TABLE", Table: tb,
				Text: fmt.Sprintf("connection %d's LOCK TABLE %s IN %s MODE did not wait for transaction T%d, which holds it in %s mode",
					st.Conn, tb, lt.Mode, holder.ID, held)}
			if lt.Nowait {
				d.Kind = "missing-error"
				d.Text = fmt.Sprintf("connection %d's LOCK TABLE %s IN %s MODE NOWAIT succeeded although transaction T%d holds it in %s mode; it must fail at once",
					st.Conn, tb, lt.Mode, holder.ID, held)
			}
			e.halt(deviated, "stopped at the first deviation")
			return d
		}
	}
	for _, tb := range lt.Tables {
		t.tableLocks = append(t.tableLocks, tableLock{table: tb, mode: lt.Mode, at: st.End})
	}
	return nil
}

// snapshotPoints are where the snapshot of st, a statement that waited
// for a table lock released at release, may have been taken: when it
// started, once the lock was released, and after each commit of another
// transaction from then until st ended. The first is st.Start.
func (e *Engine) snapshotPoints(st *Stmt, release int) []int {
	at := []int{st.Start, release + 1}
	for _, t := range e.txns {
		if t.Conn != st.Conn && t.CommitAt > release && t.CommitAt < st.End && !slices.Contains(at, t.CommitAt+1) {
			at = append(at, t.CommitAt+1)
		}
	}
	slices.Sort(at[2:])
	return at
}

// noteTxnEnd records where connection conn's transaction ended (a COMMIT
// or ROLLBACK it ran, whether the model followed the transaction or not:
// PostgreSQL holds an aborted transaction's locks until then).
func (e *Engine) noteTxnEnd(conn, at int) {
	if e.txnEnds == nil {
		e.txnEnds = map[int][]int{}
	}
	e.txnEnds[conn] = append(e.txnEnds[conn], at)
}

// connEndedBetween reports whether connection conn ended a transaction
// after from and before to.
func (e *Engine) connEndedBetween(conn, from, to int) bool {
	for _, at := range e.txnEnds[conn] {
		if at >= from && at < to {
			return true
		}
	}
	return false
}

// conflicts reports whether the request's mode conflicts with the mode a
// statement asks for on one of its tables (most: its strongest modes):
// only then may the statement wait for the lock or queue behind it.
func (l lockRequest) conflicts(most map[string]sqlast.TableLockMode) bool {
	for _, tb := range l.tables {
		if m, ok := most[tb]; ok && m.Conflicts(l.mode) {
			return true
		}
	}
	return false
}

// connEndAfter is where connection conn ended the transaction it ran at
// from (-1: not yet).
func (e *Engine) connEndAfter(conn, from int) int {
	for _, at := range e.txnEnds[conn] {
		if at >= from {
			return at
		}
	}
	return -1
}

// releaseTableLocks records that connection conn's ROLLBACK TO a
// savepoint set at from released, at at, the LOCK TABLE locks it took
// since (PostgreSQL 15 docs 13.3).
func (e *Engine) releaseTableLocks(conn, from, at int) {
	for i := range e.lockRequests {
		if l := &e.lockRequests[i]; l.conn == conn && !l.failed && l.start > from && l.released < 0 {
			l.released = at
		}
	}
}

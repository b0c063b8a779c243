package model

import (
	"maps"
	"slices"

	"github.com/txlab/txlab/target"
)

// never is a time that has not come.
const never = int(^uint(0) >> 1)

// Txn is one transaction of the schedule as the model tracks it. Times are
// positions in the actual schedule.
type Txn struct {
	ID       int // 0 is the setup
	Conn     int
	Explicit bool // began with BEGIN; otherwise one autocommit statement
	// Snapshot is when the transaction's snapshot was taken (-1: not yet);
	// when the statement that took it waited, it was taken at some point
	// before SnapshotUntil.
	Snapshot      int
	SnapshotUntil int
	// pinned: a statement certainly read at the snapshot, so it can no
	// longer move.
	pinned   bool
	CommitAt int // never until it commits
	AbortAt  int // never until it aborts
	// locks are the rows the transaction locked by locking reads, with
	// the strongest lock it holds on each.
	locks map[*Row]strength
	// rules are the rules the transaction follows when they are not the
	// engine's (a TiDB transaction of another mode); noLocks: its writes
	// hold no locks others wait for (TiDB's optimistic transactions buffer
	// them until COMMIT).
	rules   *Rules
	noLocks bool
	// doomed: an INSERT of the transaction duplicated a key of its view
	// and succeeded because the check is deferred (Rules.LazyUnique); its
	// COMMIT must fail, and the model does not follow its statements
	// after that INSERT. doomedOwn: the duplicate may be of its own row.
	doomed, doomedOwn bool
	// doomedAt is where the first such INSERT ended: a ROLLBACK TO a
	// savepoint set before it undoes it.
	doomedAt int
	// savepoints are the transaction's savepoints, oldest first; kept are
	// the row locks a ROLLBACK TO SAVEPOINT kept (Rules.SavepointUnlock).
	savepoints []savepoint
	kept       map[*Row]bool
	// ran: a statement of the transaction reached the model (the storage
	// engine joined it); viewDropAt, when above 0, is when a ROLLBACK TO a
	// savepoint set before that ended the engine's part of it, read view
	// included (Rules.SavepointReadView).
	ran        bool
	viewDropAt int
	// scanned are the tables whose rows its locking statements may have
	// locked without matching them (Rules.ScanLocks), with whether one
	// such lock is exclusive.
	scanned map[string]bool
	// maybeLocked are rows whose lock the documentation leaves open
	// (recheck.go): SKIP LOCKED does not decide them.
	maybeLocked map[*Row]bool
	// tableLocks are the table-level locks it holds (Rules.TableLocks).
	tableLocks []tableLock
	// fkDeferred are the checks its deferred foreign keys make at COMMIT
	// (fk_trigger.go, fk_lockfree.go).
	fkDeferred []fkDeferred
	// waitedOn are the tables a locking statement of it waited on, or
	// locked rows of without the model recording which (a locking read
	// over a join): rows there that it did not change may stay locked
	// (PostgreSQL locks the latest version before it re-checks the
	// WHERE, EvalPlanQual).
	waitedOn map[string]bool
}

// savepoint is where ROLLBACK TO SAVEPOINT name returns a transaction:
// the versions written from vid on are undone, and the locks taken since
// (those not in locks, by row ID) released where the rules say so.
type savepoint struct {
	name  string
	vid   int
	locks map[int]strength
	// tables is how many table locks the transaction held then, at where
	// it was set.
	tables, at int
	// first: the transaction had run no statement when it was set, so the
	// storage engine had not joined it yet (Rules.SavepointReadView).
	first bool
}

func (t *Txn) committedBefore(at int) bool { return t.ID == 0 || t.CommitAt < at }
func (t *Txn) abortedBefore(at int) bool   { return t.AbortAt < at }
func (t *Txn) activeAt(at int) bool        { return !t.committedBefore(at) && !t.abortedBefore(at) }

// Version is one version of a row: Troc's ⟨data, tx, deleted⟩.
type Version struct {
	ID      int
	Row     *Row
	Values  target.Row // nil when Deleted
	Deleted bool
	Txn     *Txn
	// NoOp marks an UPDATE that left every value as it was.
	NoOp bool
	// lock is the strength of the row lock an UPDATE's version holds
	// where the rules have key locks (lockNone: FOR UPDATE, as every
	// write elsewhere); lockUnsure: it may be FOR UPDATE instead.
	lock       strength
	lockUnsure bool
	// Prev is the version this one replaced (nil for an insert).
	Prev *Version
	// At is when the version was written (-1: the setup).
	At int
}

// Row is one row's version list, oldest first.
type Row struct {
	ID       int
	Table    string
	Versions []*Version
}

// History is the database change history of one case.
type History struct {
	// now is the schedule position of the statement being applied.
	now     int
	rows    map[string][]*Row // by table, in creation order
	tables  []string
	nextVID int
	nextRow int
	// txns and rowMap map the originals to their copies in a clone.
	txns   map[*Txn]*Txn
	rowMap map[*Row]*Row
}

// clone copies the history deeply: its rows, their versions and the
// transactions that wrote them (History.txn maps an original transaction
// to its copy).
func (h *History) clone() *History {
	c := &History{now: h.now, rows: map[string][]*Row{}, tables: slices.Clone(h.tables), nextVID: h.nextVID, nextRow: h.nextRow,
		txns: map[*Txn]*Txn{}, rowMap: map[*Row]*Row{}}
	for name, rs := range h.rows {
		out := make([]*Row, len(rs))
		for i, r := range rs {
			out[i] = &Row{ID: r.ID, Table: r.Table}
			c.rowMap[r] = out[i]
		}
		c.rows[name] = out
	}
	versions := map[*Version]*Version{}
	for _, rs := range h.rows {
		for _, r := range rs {
			nr := c.rowMap[r]
			for _, v := range r.Versions {
				nv := *v
				nv.Row, nv.Txn = nr, c.txn(v.Txn)
				if v.Prev != nil {
					nv.Prev = versions[v.Prev]
				}
				versions[v] = &nv
				nr.Versions = append(nr.Versions, &nv)
			}
		}
	}
	return c
}

// txn is the copy of transaction t in a cloned history (t itself in one
// that is not a clone). The copy shares t's rules, which never change.
func (h *History) txn(t *Txn) *Txn {
	if h.txns == nil || t == nil {
		return t
	}
	if c, ok := h.txns[t]; ok {
		return c
	}
	c := *t
	c.savepoints = slices.Clone(t.savepoints)
	c.scanned = maps.Clone(t.scanned)
	c.tableLocks = slices.Clone(t.tableLocks)
	c.waitedOn = maps.Clone(t.waitedOn)
	c.fkDeferred = slices.Clone(t.fkDeferred)
	c.kept = nil
	if len(t.kept) > 0 {
		c.kept = map[*Row]bool{}
		for r := range t.kept {
			c.kept[h.rowMap[r]] = true
		}
	}
	c.maybeLocked = nil
	for r := range t.maybeLocked {
		if c.maybeLocked == nil {
			c.maybeLocked = map[*Row]bool{}
		}
		c.maybeLocked[h.rowMap[r]] = true
	}
	c.locks = nil
	if len(t.locks) > 0 {
		c.locks = map[*Row]strength{}
		for r, x := range t.locks {
			c.locks[h.rowMap[r]] = x
		}
	}
	h.txns[t] = &c
	return &c
}

func newHistory() *History {
	return &History{rows: map[string][]*Row{}, nextVID: 1, nextRow: 1, now: -1}
}

func (h *History) addTable(name string) {
	if _, ok := h.rows[name]; !ok {
		h.rows[name] = nil
		h.tables = append(h.tables, name)
	}
}

// insert adds a new row whose first version t wrote.
func (h *History) insert(table string, vals target.Row, t *Txn) *Version {
	r := &Row{ID: h.nextRow, Table: table}
	h.nextRow++
	h.rows[table] = append(h.rows[table], r)
	return h.write(r, vals, false, t)
}

// write adds a version to r.
func (h *History) write(r *Row, vals target.Row, deleted bool, t *Txn) *Version {
	v := &Version{ID: h.nextVID, Row: r, Values: vals, Deleted: deleted, Txn: t, At: h.now}
	if n := len(r.Versions); n > 0 {
		v.Prev = r.Versions[n-1]
	}
	h.nextVID++
	r.Versions = append(r.Versions, v)
	return v
}

// live drops versions of aborted transactions: they never happened for
// anyone who reads after the abort.
func live(v *Version, at int) bool { return !v.Txn.abortedBefore(at) }

// committed returns r's latest version committed before at (nil: none, or
// deleted).
func committed(r *Row, at int) *Version {
	for i := len(r.Versions) - 1; i >= 0; i-- {
		v := r.Versions[i]
		if v.Txn.committedBefore(at) {
			return v
		}
	}
	return nil
}

// own returns r's latest version written by t (nil: none).
func own(r *Row, t *Txn) *Version {
	for i := len(r.Versions) - 1; i >= 0; i-- {
		if v := r.Versions[i]; v.Txn == t {
			return v
		}
	}
	return nil
}

// ownBefore is own without the versions from vid on.
func ownBefore(r *Row, t *Txn, vid int) *Version {
	for i := len(r.Versions) - 1; i >= 0; i-- {
		if v := r.Versions[i]; v.Txn == t && v.ID < vid {
			return v
		}
	}
	return nil
}

// latest returns r's latest version written before at and not rolled back
// at at.
func latest(r *Row, at int) *Version {
	for i := len(r.Versions) - 1; i >= 0; i-- {
		if v := r.Versions[i]; v.At < at && live(v, at) {
			return v
		}
	}
	return nil
}

// lockedBy returns another transaction active at at that holds a lock on r
// conflicting with a lock of strength want, and the version it wrote (nil
// for a lock taken by a locking read). weakest takes a write lock of
// uncertain strength at its weakest.
func lockedBy(r *Row, t *Txn, want strength, at int, txns []*Txn, noOpUnlocked, weakest bool) (*Txn, *Version) {
	if v := latest(r, at); v != nil && v.Txn != t && v.Txn.activeAt(at) && !v.Txn.noLocks && !(v.NoOp && noOpUnlocked) &&
		heldBy(r, v.Txn, at, weakest).conflicts(want) {
		return v.Txn, v
	}
	for _, o := range txns {
		if o == t || !o.activeAt(at) || o.noLocks {
			continue
		}
		if x, ok := o.locks[r]; ok && x.conflicts(want) {
			return o, nil
		}
	}
	return nil, nil
}

// visible is a version's visibility to a reader: nil (the row is absent) or
// a version that is not deleted.
func visible(v *Version) *Version {
	if v == nil || v.Deleted {
		return nil
	}
	return v
}

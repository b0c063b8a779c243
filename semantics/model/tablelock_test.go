package model_test

import (
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// TestTableLocks: PostgreSQL's table-level locks (15 docs, 13.3.1 and
// Table 13.2). The schedules are bugs/doc-pg-lock-table-*.txn as
// PostgreSQL 15 ran them, and conform; doctored ones, where a statement
// did not wait for a conflicting table lock (or a LOCK TABLE NOWAIT did
// not fail), are flagged at that statement; an UPDATE that waited for
// another transaction's LOCK TABLE lock is judged (from when it started,
// or, in another replay, from when the lock was released), unless the
// lock was still held when it ended: then the model stops.
func TestTableLocks(t *testing.T) {
	setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10), (2, 20)"}
	lockErr := &target.Error{Class: target.ClassLockTimeout, Code: "55P03", Message: "could not obtain lock on relation", RolledBack: true}
	modes := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "LOCK TABLE t IN SHARE MODE"},
			{conn: 2, sql: "SELECT * FROM t", rows: tuples("1, 10", "2, 20")},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "SELECT * FROM t FOR UPDATE NOWAIT", rows: tuples("1, 10", "2, 20")},
			{conn: 2, sql: "LOCK TABLE t IN ROW EXCLUSIVE MODE NOWAIT", err: lockErr},
			{conn: 2, sql: "ROLLBACK"},
			{conn: 3, sql: "BEGIN"},
			{conn: 3, sql: "LOCK TABLE t IN ACCESS SHARE MODE NOWAIT"},
			{conn: 3, sql: "COMMIT"},
			{conn: 1, sql: "COMMIT"},
			{conn: 4, sql: "INSERT INTO t VALUES (3, 30)", affected: 1, from: 10},
		}
	}
	savepoint := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "LOCK TABLE t IN SHARE MODE"},
			{conn: 1, sql: "SAVEPOINT s1"},
			{conn: 1, sql: "LOCK TABLE t IN EXCLUSIVE MODE"},
			{conn: 1, sql: "ROLLBACK TO SAVEPOINT s1"},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 1 FOR UPDATE", rows: tuples("1, 10")},
			{conn: 2, sql: "LOCK TABLE t IN ROW EXCLUSIVE MODE NOWAIT", err: lockErr},
			{conn: 2, sql: "ROLLBACK"},
			{conn: 1, sql: "COMMIT"},
		}
	}
	// released: connection 2's UPDATE waits for a SHARE lock that
	// connection 1's ROLLBACK TO SAVEPOINT releases (it resumed there).
	released := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SAVEPOINT s1"},
			{conn: 1, sql: "LOCK TABLE t IN SHARE MODE"},
			{conn: 1, sql: "ROLLBACK TO SAVEPOINT s1"},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1, from: 3},
			{conn: 1, sql: "SELECT * FROM t", rows: tuples("1, 11", "2, 20")},
			{conn: 1, sql: "COMMIT"},
		}
	}
	tg := connecttest.Target(t, "postgres")
	for _, level := range []target.Level{target.ReadCommitted, target.RepeatableRead} {
		for _, c := range []struct {
			name   string
			steps  func() []step
			doctor func([]step)
			kind   string
			at     int
			halt   string
		}{
			{"modes as run", modes, func([]step) {}, "", 0, ""},
			{"savepoint as run", savepoint, func([]step) {}, "", 0, ""},
			{"a wait that a savepoint rollback ends as run", released, func([]step) {}, "", 0, ""},
			{"row exclusive nowait succeeds on a share-locked table", modes, func(s []step) { s[5].err = nil }, "missing-error", 5, ""},
			{"insert does not wait for a share lock", modes, func(s []step) {
				s[10], s[11] = step{conn: 4, sql: "INSERT INTO t VALUES (3, 30)", affected: 1}, s[10]
			}, "incorrect-blocking", 10, ""},
			{"locking read does not wait for an exclusive lock kept by RELEASE", savepoint, func(s []step) {
				s[4].sql = "RELEASE SAVEPOINT s1"
			}, "incorrect-blocking", 6, ""},
			{"an update that waited for a table lock", modes, func(s []step) {
				s[11].sql = "UPDATE t SET v = 11 WHERE id = 1"
			}, "", 0, ""},
			{"an update that waited for a table lock held past its end", modes, func(s []step) {
				s[10] = step{conn: 5, sql: "SELECT * FROM t WHERE id = 1", rows: tuples("1, 10")}
				s[11].sql = "UPDATE t SET v = 11 WHERE id = 1"
			}, "", 0, "not modelled: lock-table"},
		} {
			t.Run(string(level)+"/"+c.name, func(t *testing.T) {
				eng := newEngine(t, tg, model.Lookup("postgres", level, nil), setup)
				sch := c.steps()
				c.doctor(sch)
				dev := replay(t, eng, sch)
				if c.halt != "" {
					if dev != nil || eng.HaltReason() != c.halt {
						t.Fatalf("deviation %v, halted %q; want halted %q", dev, eng.HaltReason(), c.halt)
					}
					return
				}
				outcome{c.kind, "bug", "", c.at}.check(t, eng, dev)
			})
		}
	}
}

// anyReplay replays steps in every combination of the choices the engine
// meets and returns nil when one conforms, else the first replay's
// deviation (or nil with the engine halted).
func anyReplay(t *testing.T, eng *model.Engine, steps []step) (*model.Deviation, *model.Engine) {
	t.Helper()
	var first *model.Deviation
	var firstEng *model.Engine
	var script []int
	for {
		e := eng.Fork(script)
		dev := replay(t, e, steps)
		if dev == nil && e.Halted() == "" {
			return nil, e
		}
		if firstEng == nil {
			first, firstEng = dev, e
		}
		next, ok := e.NextScript()
		if !ok {
			return first, firstEng
		}
		script = next
	}
}

// TestTableLockWaitersSnapshot: the waiters a released table lock wakes
// take their snapshots as they get to run, so a statement that waited may
// see a transaction that committed after the release and before it ended
// (PostgreSQL 15: an autocommit INSERT ran between the COMMIT that freed
// the lock and the DELETE's snapshot; a 10-minute campaign flagged it).
// A count no such point gives is still flagged.
func TestTableLockWaitersSnapshot(t *testing.T) {
	setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)"}
	steps := func(deleted int64) []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "LOCK TABLE t IN SHARE MODE"},
			{conn: 1, sql: "INSERT INTO t VALUES (2, 20)", affected: 1},
			{conn: 1, sql: "COMMIT"},
			{conn: 3, sql: "INSERT INTO t VALUES (3, 30)", affected: 1},
			{conn: 2, sql: "DELETE FROM t WHERE v > 0", affected: deleted, from: 2},
		}
	}
	tg := connecttest.Target(t, "postgres")
	for _, c := range []struct {
		name     string
		deleted  int64
		deviates bool
	}{
		{"snapshot before the lock was released", 1, false},
		{"snapshot once the lock was released", 2, false},
		{"snapshot after a commit that followed the release", 3, false},
		{"a count no snapshot gives", 4, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := newEngine(t, tg, model.Lookup("postgres", target.ReadCommitted, nil), setup)
			dev, e := anyReplay(t, eng, steps(c.deleted))
			switch {
			case c.deviates && dev == nil:
				t.Fatalf("not flagged (halted: %q)", e.Halted())
			case !c.deviates && dev != nil:
				t.Fatalf("documented outcome flagged: %s %s", dev.Kind, dev.Text)
			case !c.deviates && e.Halted() != "":
				t.Fatalf("halted: %s", e.Halted())
			}
		})
	}
}

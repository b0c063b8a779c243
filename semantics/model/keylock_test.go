package model_test

import (
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// TestKeyLocks: PostgreSQL's four row lock strengths (15 docs, 13.3.2 and
// Table 13.3). FOR KEY SHARE and FOR NO KEY UPDATE (which a non-key UPDATE
// takes) do not conflict; FOR SHARE conflicts with FOR NO KEY UPDATE; a
// key-changing UPDATE takes FOR UPDATE, which conflicts with every lock.
// The schedules conform as PostgreSQL 15 ran them (bugs/pg-key-share-*.txn
// hold them as cases); doctored ones are flagged where a lock must have
// made the statement wait, fail (NOWAIT) or skip the row (SKIP LOCKED).
func TestKeyLocks(t *testing.T) {
	setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10), (2, 20)"}
	lockErr := &target.Error{Class: target.ClassLockTimeout, Code: "55P03", Message: "could not obtain lock on row", RolledBack: true}
	// a: connection 1 holds FOR KEY SHARE on row 1; connection 2 updates
	// row 1's v (FOR NO KEY UPDATE) and locks row 2 FOR NO KEY UPDATE.
	a := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SELECT * FROM t WHERE id = 1 FOR KEY SHARE", rows: tuples("1, 10")},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 2 FOR NO KEY UPDATE", rows: tuples("2, 20")},
			{conn: 3, sql: "SELECT * FROM t WHERE v > 0 FOR KEY SHARE SKIP LOCKED", rows: tuples("1, 10", "2, 20")},
			{conn: 3, sql: "SELECT * FROM t WHERE v > 0 FOR SHARE SKIP LOCKED", rows: tuples()},
			{conn: 3, sql: "SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT", err: lockErr},
			{conn: 3, sql: "SELECT * FROM t WHERE v > 0 ORDER BY id LIMIT 1 FOR KEY SHARE SKIP LOCKED", rows: tuples("1, 10")},
			{conn: 3, sql: "SELECT * FROM t WHERE v >= (SELECT MIN(v) FROM t) FOR SHARE SKIP LOCKED", rows: tuples()},
			{conn: 2, sql: "COMMIT"},
			{conn: 1, sql: "COMMIT"},
		}
	}
	// b: connection 1 changes row 1's key (FOR UPDATE) and row 2's v (FOR
	// NO KEY UPDATE); connection 2 reads them FOR KEY SHARE.
	b := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "UPDATE t SET id = 3 WHERE id = 1", affected: 1},
			{conn: 1, sql: "UPDATE t SET v = 21 WHERE id = 2", affected: 1},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 2 FOR KEY SHARE", rows: tuples("2, 20")},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 1 FOR KEY SHARE NOWAIT", err: lockErr},
			{conn: 1, sql: "COMMIT"},
		}
	}
	// c: connection 1 strengthens its FOR KEY SHARE lock on row 1 to FOR
	// UPDATE after a savepoint and rolls back to it: the stronger lock
	// goes (13.3: a lock acquired after a savepoint is released when the
	// savepoint is rolled back to), the FOR KEY SHARE lock stays.
	c := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SELECT * FROM t WHERE id = 1 FOR KEY SHARE", rows: tuples("1, 10")},
			{conn: 1, sql: "SAVEPOINT s1"},
			{conn: 1, sql: "SELECT * FROM t WHERE id = 1 FOR UPDATE", rows: tuples("1, 10")},
			{conn: 1, sql: "ROLLBACK TO SAVEPOINT s1"},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 1 FOR NO KEY UPDATE NOWAIT", rows: tuples("1, 10")},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT", err: lockErr},
			{conn: 1, sql: "COMMIT"},
		}
	}
	// d: connection 1 updates row 1's v (FOR NO KEY UPDATE), connection 2
	// takes FOR KEY SHARE on it; connection 1's DELETE of its own version
	// (FOR UPDATE) waits for connection 2, one its version does not meet
	// does not.
	d := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "SELECT * FROM t WHERE id = 1 FOR KEY SHARE", rows: tuples("1, 10")},
			{conn: 1, sql: "DELETE FROM t WHERE v = 10"},
			{conn: 2, sql: "COMMIT"},
			{conn: 1, sql: "DELETE FROM t WHERE v = 11", affected: 1, from: 5},
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
		}{
			{"key share and no key update as run", a, func([]step) {}, "", 0},
			{"key-changing update as run", b, func([]step) {}, "", 0},
			{"key share skip locked skips a row", a, func(s []step) { s[5].rows = tuples("2, 20") }, "incorrect-result", 5},
			{"share skip locked returns a no-key-locked row", a, func(s []step) { s[6].rows = tuples("2, 20") }, "incorrect-result", 6},
			{"skip locked with limit skips a row it may lock", a, func(s []step) { s[8].rows = tuples("2, 20") }, "incorrect-result", 8},
			{"skip locked with a subquery returns a locked row", a, func(s []step) { s[9].rows = tuples("2, 20") }, "incorrect-result", 9},
			{"for update nowait succeeds on a key-share-locked row", a, func(s []step) {
				s[7].sql = "SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT"
				s[7].rows, s[7].err = tuples("1, 10"), nil
			}, "missing-error", 7},
			{"delete does not wait for key share", a, func(s []step) {
				s[3].sql = "DELETE FROM t WHERE id = 1"
			}, "incorrect-blocking", 3},
			{"savepoint rollback keeps the weaker lock as run", c, func([]step) {}, "", 0},
			{"delete of an own row another transaction key-share-locks as run", d, func([]step) {}, "", 0},
			{"delete of an own key-share-locked row does not wait", d, func(s []step) {
				s[4].sql, s[4].affected = "DELETE FROM t WHERE v = 11", 1
			}, "incorrect-blocking", 4},
			{"for update nowait succeeds after the savepoint rollback", c, func(s []step) {
				s[6].rows, s[6].err = tuples("1, 10"), nil
			}, "missing-error", 6},
			{"key share nowait succeeds on a key-changed row", b, func(s []step) {
				s[5].rows, s[5].err = tuples("1, 10"), nil
			}, "missing-error", 5},
			{"share nowait succeeds on a no-key-updated row", b, func(s []step) {
				s[4].sql = "SELECT * FROM t WHERE id = 2 FOR SHARE NOWAIT"
			}, "missing-error", 4},
		} {
			t.Run(string(level)+"/"+c.name, func(t *testing.T) {
				eng := newEngine(t, tg, model.Lookup("postgres", level, nil), setup)
				sch := c.steps()
				c.doctor(sch)
				outcome{c.kind, "bug", "", c.at}.check(t, eng, replay(t, eng, sch))
			})
		}
	}
}

package model_test

import (
	"testing"

	"github.com/txlab/txlab/target"
)

// TestPostgresForeignKeyChecks: PostgreSQL's foreign key checks as
// PostgreSQL 15.18 ran them at every level (bugs/doc-pg-fk-key-share.txn,
// bugs/doc-pg-fk-restrict-sees-new-child.txn): a child's INSERT locks the
// parent row FOR KEY SHARE, which a DELETE of it waits for and a non-key
// UPDATE does not; a parent's DELETE fails while a child row its latest
// snapshot shows references the row. Doctored outcomes are flagged; a
// check the model does not follow stops it.
func TestPostgresForeignKeyChecks(t *testing.T) {
	setup := []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE child (id INT PRIMARY KEY, pid INT REFERENCES parent (id))",
		"INSERT INTO parent VALUES (1, 10), (2, 20)",
	}
	fkErr := &target.Error{Class: target.ClassConstraint, Code: "23503", Message: "violates foreign key constraint", RolledBack: true}
	begin := step{conn: 1, sql: "BEGIN"}
	snapshot := step{conn: 1, sql: "SELECT * FROM child"}
	insert := step{conn: 1, sql: "INSERT INTO child VALUES (1, 1)", affected: 1}
	update := step{conn: 2, sql: "UPDATE parent SET v = 11 WHERE id = 1", affected: 1}
	deleted := step{conn: 3, sql: "DELETE FROM parent WHERE id = 1", affected: 1}
	failed := step{conn: 3, sql: "DELETE FROM parent WHERE id = 1", err: fkErr}
	commit := step{conn: 1, sql: "COMMIT"}
	waited := func(s step, from int) step { s.from = from; return s }
	other := func(sql string, affected int64) step { return step{conn: 2, sql: sql, affected: affected} }
	rc, rrSer := []target.Level{target.ReadCommitted}, []target.Level{target.RepeatableRead, target.Serializable}
	cases := []fkCase{
		{name: "as run: the INSERT waits for a DELETE of its parent row that rolls back, then succeeds", steps: []step{other("BEGIN", 0),
			other("DELETE FROM parent WHERE id = 1", 1), other("ROLLBACK", 0), waited(insert, 2), {conn: 3, sql: "DELETE FROM parent WHERE id = 1", err: fkErr}}},
		{name: "doctored: the INSERT succeeds after the DELETE it waited for committed", steps: []step{other("BEGIN", 0),
			other("DELETE FROM parent WHERE id = 1", 1), other("COMMIT", 0), waited(insert, 2)}, kind: "missing-error", at: 3},
		{name: "as run at RC: the INSERT waits for a FOR UPDATE holder, which changes the row but not its key", levels: rc, steps: []step{other("BEGIN", 0),
			{conn: 2, sql: "SELECT * FROM parent WHERE id = 1 FOR UPDATE", rows: tuples("1, 10")}, other("UPDATE parent SET v = 11 WHERE id = 1", 1), other("COMMIT", 0), waited(insert, 2)}},
		{name: "doctored at RR: the same INSERT succeeds (40001 there): not followed", levels: rrSer, halt: "not modelled: foreign-key", steps: []step{other("BEGIN", 0),
			{conn: 2, sql: "SELECT * FROM parent WHERE id = 1 FOR UPDATE", rows: tuples("1, 10")}, other("UPDATE parent SET v = 11 WHERE id = 1", 1), other("COMMIT", 0), waited(insert, 2)}},
		{name: "as run: the non-key UPDATE passes, the DELETE waits and fails", steps: []step{begin, insert, update, commit, waited(failed, 3)}},
		{name: "doctored: the DELETE does not wait", steps: []step{begin, insert, update, deleted}, kind: "incorrect-blocking", at: 3},
		{name: "doctored: the DELETE succeeds once the child row is committed", steps: []step{begin, insert, update, commit, waited(deleted, 3)}, kind: "missing-error", at: 4},
		{name: "the inserting transaction rolls back: the DELETE succeeds", steps: []step{begin, insert, {conn: 1, sql: "ROLLBACK"}, waited(deleted, 2)}},
		{name: "as run: the DELETE's check sees a child row committed after its snapshot", steps: []step{begin, snapshot,
			{conn: 2, sql: "INSERT INTO child VALUES (1, 1)", affected: 1}, {conn: 1, sql: "DELETE FROM parent WHERE id = 1", err: fkErr}}},
		{name: "doctored: the DELETE succeeds over a child row committed after its snapshot", steps: []step{begin, snapshot,
			{conn: 2, sql: "INSERT INTO child VALUES (1, 1)", affected: 1}, {conn: 1, sql: "DELETE FROM parent WHERE id = 1", affected: 1}}, kind: "missing-error", at: 3},
		{name: "as run: a parent row non-key updated after the snapshot is locked in its latest version",
			steps: []step{begin, snapshot, update, insert, commit, waited(failed, 4)}},
		{name: "doctored: the DELETE does not wait for the check's lock on the updated row",
			steps: []step{begin, snapshot, update, insert, deleted}, kind: "incorrect-blocking", at: 4},
		{name: "doctored: the INSERT succeeds over a parent row deleted after the snapshot (23503, or 40001 at RR)", kind: "missing-error", at: 3,
			steps: []step{begin, snapshot, {conn: 2, sql: "DELETE FROM parent WHERE id = 1", affected: 1}, insert}},
		{name: "a parent row another transaction is deleting: the check waits, not followed", halt: "not modelled: foreign-key",
			steps: []step{{conn: 2, sql: "BEGIN"}, {conn: 2, sql: "DELETE FROM parent WHERE id = 1", affected: 1}, insert}},
		{name: "a key UPDATE of a referenced row fails; of an unreferenced one succeeds", steps: []step{begin, insert, commit,
			{conn: 2, sql: "UPDATE parent SET id = 3 WHERE id = 1", err: fkErr}, {conn: 2, sql: "UPDATE parent SET id = 4 WHERE id = 2", affected: 1}}},
		{name: "doctored: a key UPDATE of a referenced row succeeds", steps: []step{begin, insert, commit,
			{conn: 2, sql: "UPDATE parent SET id = 3 WHERE id = 1", affected: 1}}, kind: "missing-error", at: 3},
		{name: "its own child row fails the transaction's DELETE", steps: []step{begin, insert, {conn: 1, sql: "DELETE FROM parent WHERE id = 1", affected: 1}},
			kind: "missing-error", at: 2},
		{name: "a child row being deleted by another transaction: the check waits, not followed", halt: "not modelled: foreign-key", steps: []step{begin, insert, commit,
			{conn: 2, sql: "BEGIN"}, {conn: 2, sql: "DELETE FROM child WHERE id = 1", affected: 1}, deleted}},
	}
	runFKCases(t, "postgres", []target.Level{target.ReadCommitted, target.RepeatableRead, target.Serializable}, setup, cases)
}

// TestPostgresForeignKeyActions: ON DELETE CASCADE and ON UPDATE SET NULL
// as PostgreSQL 15.18 ran them (bugs/doc-pg-fk-cascade-locks.txn): the
// parent's statement deletes, or sets NULL in, the child rows that
// reference the key, as its own transaction's writes, which lock them;
// at REPEATABLE READ a child row changed after the snapshot fails the
// statement (40001), which the model does not follow when it succeeds.
func TestPostgresForeignKeyActions(t *testing.T) {
	setup := []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE child (id INT PRIMARY KEY, pid INT REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL, w INT)",
		"INSERT INTO parent VALUES (1, 10), (2, 20)",
		"INSERT INTO child VALUES (1, 1, 100), (2, 2, 200)",
	}
	begin := step{conn: 1, sql: "BEGIN"}
	del := step{conn: 1, sql: "DELETE FROM parent WHERE id = 1", affected: 1}
	own := step{conn: 1, sql: "SELECT * FROM child", rows: tuples("2, 2, 200")}
	update := step{conn: 2, sql: "UPDATE child SET w = 101 WHERE id = 1"}
	setNull := step{conn: 3, sql: "UPDATE parent SET id = 3 WHERE id = 2", affected: 1}
	other := step{conn: 3, sql: "SELECT * FROM child", rows: []target.Row{tuples("1, 1, 100")[0], {target.Str("2"), target.NullValue, target.Str("200")}}}
	commit := step{conn: 1, sql: "COMMIT"}
	waited := func(s step, from int) step { s.from = from; return s }
	cases := []fkCase{
		{name: "as run at RC: the cascade's delete waits the UPDATE out, which then finds no row",
			steps: []step{begin, del, own, setNull, other, commit, waited(update, 3)}, levels: []target.Level{target.ReadCommitted}},
		{name: "as run at RR: the UPDATE that waited fails",
			steps:  []step{begin, del, own, setNull, other, commit, waited(step{conn: 2, sql: update.sql, err: &target.Error{Class: target.ClassSerialization, Code: "40001", RolledBack: true}}, 3)},
			levels: []target.Level{target.RepeatableRead}},
		{name: "doctored: the DELETE's own read still shows the child row", steps: []step{begin, del, {conn: 1, sql: "SELECT * FROM child", rows: tuples("1, 1, 100", "2, 2, 200")}},
			kind: "incorrect-result", at: 2},
		{name: "doctored: the UPDATE of the cascaded row does not wait", steps: []step{begin, del, own, {conn: 2, sql: update.sql, affected: 1}},
			kind: "incorrect-blocking", at: 3},
		{name: "doctored: SET NULL left the child row as it was", steps: []step{begin, del, setNull, {conn: 3, sql: "SELECT * FROM child", rows: tuples("1, 1, 100", "2, 2, 200")}},
			kind: "incorrect-result", at: 3},
		{name: "a child row inserted after the RR snapshot: the cascade fails there, not followed when it succeeds", halt: "not modelled: on-delete-cascade",
			steps:  []step{begin, {conn: 1, sql: "SELECT * FROM parent", rows: tuples("1, 10", "2, 20")}, {conn: 2, sql: "INSERT INTO child VALUES (3, 1, 300)", affected: 1}, del},
			levels: []target.Level{target.RepeatableRead, target.Serializable}},
		{name: "as run at RC: the cascade deletes a child row committed after the transaction's first read",
			steps:  []step{begin, {conn: 1, sql: "SELECT * FROM parent", rows: tuples("1, 10", "2, 20")}, {conn: 2, sql: "INSERT INTO child VALUES (3, 1, 300)", affected: 1}, del, own},
			levels: []target.Level{target.ReadCommitted}},
	}
	runFKCases(t, "postgres", []target.Level{target.ReadCommitted, target.RepeatableRead, target.Serializable}, setup, cases)
}

// TestPostgresDeferredForeignKeys: a DEFERRABLE INITIALLY DEFERRED key
// checks at COMMIT, as PostgreSQL 15.18 ran it
// (bugs/doc-pg-fk-deferred-commit.txn): a child row whose parent another
// transaction deleted fails the COMMIT, as does a DELETE of a parent row
// a child row references; a COMMIT that succeeded over such a row is
// flagged; one that waited stops the model.
func TestPostgresDeferredForeignKeys(t *testing.T) {
	setup := []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE child (id INT PRIMARY KEY, pid INT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
		"INSERT INTO parent VALUES (1, 10), (2, 20)",
		"INSERT INTO child VALUES (2, 2)",
	}
	fkErr := &target.Error{Class: target.ClassConstraint, Code: "23503", RolledBack: true}
	begin := step{conn: 1, sql: "BEGIN"}
	insert := step{conn: 1, sql: "INSERT INTO child VALUES (1, 1)", affected: 1}
	deleted := step{conn: 2, sql: "DELETE FROM parent WHERE id = 1", affected: 1}
	commit := step{conn: 1, sql: "COMMIT"}
	failed := step{conn: 1, sql: "COMMIT", err: fkErr}
	rc := []target.Level{target.ReadCommitted}
	cases := []fkCase{
		{name: "as run: the parent is deleted before the COMMIT, which fails", steps: []step{begin, insert, deleted, failed}},
		{name: "doctored: the COMMIT succeeds over a deleted parent", steps: []step{begin, insert, deleted, commit}, kind: "missing-error", at: 3, levels: rc},
		{name: "the parent is inserted after the child, in the same transaction", steps: []step{begin, {conn: 1, sql: "INSERT INTO child VALUES (1, 9)", affected: 1},
			{conn: 1, sql: "INSERT INTO parent VALUES (9, 90)", affected: 1}, commit}},
		{name: "doctored: the COMMIT succeeds with no parent", steps: []step{begin, {conn: 1, sql: "INSERT INTO child VALUES (1, 9)", affected: 1}, commit},
			kind: "missing-error", at: 2},
		{name: "as run: a DELETE of a referenced parent row fails at COMMIT", steps: []step{begin, {conn: 1, sql: "DELETE FROM parent WHERE id = 2", affected: 1},
			{conn: 1, sql: "SELECT * FROM parent", rows: tuples("1, 10")}, failed}},
		{name: "doctored: the DELETE's COMMIT succeeds", steps: []step{begin, {conn: 1, sql: "DELETE FROM parent WHERE id = 2", affected: 1}, commit},
			kind: "missing-error", at: 2},
		{name: "as run: a non-key UPDATE does not hold the COMMIT's check up", steps: []step{begin, insert, {conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE parent SET v = 11 WHERE id = 1", affected: 1}, commit, {conn: 2, sql: "DELETE FROM parent WHERE id = 1", affected: 1},
			{conn: 2, sql: "COMMIT", err: fkErr}}},
		{name: "a COMMIT that waited for a DELETE of the parent and succeeded: not followed", halt: "not modelled: deferred-constraint", steps: []step{begin, insert, {conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "DELETE FROM parent WHERE id = 1", affected: 1}, {conn: 2, sql: "ROLLBACK"}, {conn: 1, sql: "COMMIT", from: 4}}},
	}
	runFKCases(t, "postgres", []target.Level{target.ReadCommitted, target.RepeatableRead, target.Serializable}, setup, cases)
}

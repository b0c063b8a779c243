package model_test

import (
	"slices"
	"testing"

	"github.com/txlab/txlab/target"
)

// TestSQLiteForeignKeyActions: SQLite's ON DELETE CASCADE and ON UPDATE
// SET NULL change the child rows within the parent's statement
// (bugs/doc-sqlite-fk-cascade.txn): the writer sees the change at once,
// a reader's snapshot does not; doctored reads are flagged.
func TestSQLiteForeignKeyActions(t *testing.T) {
	setup := []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE child (id INT PRIMARY KEY, pid INT REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL, w INT)",
		"INSERT INTO parent VALUES (1, 10), (2, 20)",
		"INSERT INTO child VALUES (1, 1, 100), (2, 2, 200)",
	}
	both := tuples("1, 1, 100", "2, 2, 200")
	nulled := []target.Row{{target.Str("2"), target.NullValue, target.Str("200")}}
	head := []step{{conn: 2, sql: "BEGIN"}, {conn: 2, sql: "SELECT * FROM child", rows: both}, {conn: 1, sql: "BEGIN"},
		{conn: 1, sql: "DELETE FROM parent WHERE id = 1", affected: 1}}
	cases := []fkCase{
		{name: "as run", steps: append(slices.Clone(head), step{conn: 1, sql: "SELECT * FROM child", rows: tuples("2, 2, 200")},
			step{conn: 1, sql: "UPDATE parent SET id = 3 WHERE id = 2", affected: 1}, step{conn: 1, sql: "SELECT * FROM child", rows: nulled},
			step{conn: 2, sql: "SELECT * FROM child", rows: both}, step{conn: 1, sql: "COMMIT"}, step{conn: 2, sql: "COMMIT"},
			step{conn: 3, sql: "SELECT * FROM child", rows: nulled})},
		{name: "doctored: the writer still sees the deleted parent's child row", steps: append(slices.Clone(head), step{conn: 1, sql: "SELECT * FROM child", rows: both}),
			kind: "incorrect-result", at: 4},
		{name: "doctored: SET NULL left the child key", steps: append(slices.Clone(head), step{conn: 1, sql: "UPDATE parent SET id = 3 WHERE id = 2", affected: 1},
			step{conn: 1, sql: "COMMIT"}, step{conn: 3, sql: "SELECT * FROM child", rows: tuples("2, 2, 200")}), kind: "incorrect-result", at: 6},
	}
	runFKCases(t, "sqlite", []target.Level{target.Serializable}, setup, cases)
}

// TestSQLiteDeferredForeignKeys: a deferred key of SQLite is checked when
// the transaction commits (an autocommit statement's at its end): a
// COMMIT or a statement that succeeded over a key no parent row holds is
// flagged; a failed COMMIT ends the transaction uncommitted (the executor
// rolls back what SQLite leaves open), and the model follows the case on.
func TestSQLiteDeferredForeignKeys(t *testing.T) {
	setup := []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE kid (id INT PRIMARY KEY, pid INT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
		"INSERT INTO parent VALUES (1, 10), (2, 20)",
		"INSERT INTO kid VALUES (2, 2)",
	}
	fkErr := &target.Error{Class: target.ClassConstraint, Code: "787", Message: "FOREIGN KEY constraint failed"}
	begin := step{conn: 1, sql: "BEGIN"}
	cases := []fkCase{
		{name: "as run: the parent comes after the child; a DELETE's key is inserted again", steps: []step{begin, {conn: 1, sql: "INSERT INTO kid VALUES (1, 9)", affected: 1},
			{conn: 1, sql: "INSERT INTO parent VALUES (9, 90)", affected: 1}, {conn: 1, sql: "COMMIT"}, begin,
			{conn: 1, sql: "DELETE FROM parent WHERE id = 2", affected: 1}, {conn: 1, sql: "INSERT INTO parent VALUES (2, 21)", affected: 1}, {conn: 1, sql: "COMMIT"},
			{conn: 1, sql: "INSERT INTO kid VALUES (3, 7)", err: fkErr}}},
		{name: "doctored: the COMMIT succeeds with no parent", steps: []step{begin, {conn: 1, sql: "INSERT INTO kid VALUES (1, 9)", affected: 1}, {conn: 1, sql: "COMMIT"}},
			kind: "missing-error", at: 2},
		{name: "doctored: the COMMIT succeeds after a referenced parent's DELETE", steps: []step{begin, {conn: 1, sql: "DELETE FROM parent WHERE id = 2", affected: 1}, {conn: 1, sql: "COMMIT"}},
			kind: "missing-error", at: 2},
		{name: "doctored: an autocommit INSERT succeeds with no parent", steps: []step{{conn: 1, sql: "INSERT INTO kid VALUES (3, 7)", affected: 1}},
			kind: "missing-error", at: 0},
		{name: "a failed COMMIT and txlab's ROLLBACK: the transaction did not commit", steps: []step{begin, {conn: 1, sql: "INSERT INTO kid VALUES (1, 9)", affected: 1},
			{conn: 1, sql: "COMMIT", err: fkErr}, {conn: 1, sql: "ROLLBACK"}, {conn: 2, sql: "SELECT * FROM kid", rows: tuples("2, 2")},
			{conn: 2, sql: "INSERT INTO parent VALUES (9, 90)", affected: 1}}},
		{name: "doctored: the failed COMMIT's row is seen", steps: []step{begin, {conn: 1, sql: "INSERT INTO kid VALUES (1, 9)", affected: 1},
			{conn: 1, sql: "COMMIT", err: fkErr}, {conn: 1, sql: "ROLLBACK"}, {conn: 2, sql: "SELECT * FROM kid", rows: tuples("1, 9", "2, 2")}},
			kind: "incorrect-result", at: 4},
	}
	runFKCases(t, "sqlite", []target.Level{target.Serializable}, setup, cases)
}

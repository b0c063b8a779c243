package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// step is one statement of a hand-written schedule, in completion order:
// its event position is its index, or [from, index] when from > 0 (it
// waited from event from).
type step struct {
	conn     int
	sql      string
	rows     []target.Row
	affected int64
	err      *target.Error
	from     int
}

func tuples(ts ...string) []target.Row {
	var out []target.Row
	for _, t := range ts {
		var r target.Row
		for _, v := range strings.Split(t, ",") {
			r = append(r, target.Str(strings.TrimSpace(v)))
		}
		out = append(out, r)
	}
	return out
}

var dupKey = &target.Error{Class: target.ClassDuplicateKey, Code: "1062", Message: "Duplicate entry", RolledBack: true}

var lazySetup = []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CREATE TABLE u (id INT PRIMARY KEY, k INT, UNIQUE (k))",
	"INSERT INTO t VALUES (1, 10)", "INSERT INTO u VALUES (1, 5)"}

var replaceSetup = []string{"CREATE TABLE t1 (c1 VARCHAR(20) NOT NULL CHECK (c1 >= 'a'), c2 DECIMAL(10,2) NOT NULL PRIMARY KEY)", "INSERT INTO t1 (c1, c2) VALUES ('a', 21.02)"}

// replaceSteps: an optimistic transaction's REPLACE of a key another
// REPLACE changed since its snapshot, and what its SELECT returned.
func replaceSteps(seen ...string) []step {
	return []step{
		{conn: 1, sql: "BEGIN"},
		{conn: 2, sql: "REPLACE INTO t1 (c1, c2) VALUES ('ha', 21.02), ('a', 0)", affected: 3},
		{conn: 1, sql: "REPLACE INTO t1 VALUES ('hf', 21.02)", affected: 2},
		{conn: 1, sql: "SELECT * FROM t1", rows: tuples(seen...)},
	}
}

// lazySteps is an optimistic schedule whose two transactions insert keys
// their snapshots hold (as TiDB ran it), with the errors of connection
// 2's and 1's COMMIT.
func lazySteps(commit2, commit1 *target.Error) []step {
	return []step{
		{conn: 1, sql: "BEGIN"},
		{conn: 1, sql: "INSERT INTO t VALUES (1, 20)", affected: 1},
		{conn: 1, sql: "SELECT * FROM t", rows: tuples("1, 20")},
		{conn: 2, sql: "BEGIN"},
		{conn: 2, sql: "INSERT INTO u VALUES (2, 5)", affected: 1},
		{conn: 2, sql: "SELECT * FROM u", rows: tuples("1, 5", "2, 5")},
		{conn: 2, sql: "COMMIT", err: commit2},
		{conn: 1, sql: "UPDATE t SET v = 30 WHERE id = 1", affected: 1},
		{conn: 1, sql: "COMMIT", err: commit1},
	}
}

var writeConflict = &target.Error{Class: target.ClassSerialization, Code: "9007", Message: "Write conflict", RolledBack: true}

// TestLazyUnique: TiDB's optimistic transactions check unique keys at
// COMMIT unless tidb_constraint_check_in_place is ON; pessimistic ones
// when the statement runs.
func TestLazyUnique(t *testing.T) {
	for _, c := range []struct {
		settings map[string]string
		want     bool
	}{
		{map[string]string{"tidb_txn_mode": "optimistic"}, true},
		{map[string]string{"tidb_txn_mode": "optimistic", "tidb_constraint_check_in_place": "1"}, false},
		{map[string]string{"tidb_txn_mode": "optimistic", "tidb_constraint_check_in_place": "OFF"}, true},
		{map[string]string{}, false},
	} {
		r := model.Lookup("tidb", target.RepeatableRead, c.settings)
		if r.LazyUnique != c.want || r.Modes[model.TiDBPessimistic].LazyUnique {
			t.Errorf("%v: LazyUnique %v (pessimistic mode's %v), want %v", c.settings, r.LazyUnique, r.Modes[model.TiDBPessimistic].LazyUnique, c.want)
		}
	}
}

// TestTiDBModel replays hand-written TiDB schedules, each one as TiDB
// v8.5.6 ran it (txlab run --db tidb) and doctored: the documented
// outcome must conform, the doctored one must be flagged at the statement
// it changed, with the rule named. TiDB itself evaluates (its temporary
// tables), so the test needs txlab's build of TiDB (skipped without it).
func TestTiDBModel(t *testing.T) {
	tg := connecttest.Target(t, "tidb")
	ctx := context.Background()
	setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)"}
	opt := map[string]string{"tidb_txn_mode": "optimistic"}
	unistore := map[string]string{"tidb_config": `{"store": "unistore", "port": 4000}`}
	cases := []struct {
		name     string
		level    target.Level
		settings map[string]string
		setup    []string
		steps    []step
		final    []target.Row
		// kind and rule of the deviation ("" = none), at step index at.
		kind, rule string
		verdict    string
		at         int
	}{
		{name: "snapshot at BEGIN", level: target.RepeatableRead, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("10")},
			{conn: 1, sql: "COMMIT"},
		}, final: tuples("1, 11")},
		{name: "snapshot at the first read (InnoDB's) is not TiDB's", level: target.RepeatableRead, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("11")},
			{conn: 1, sql: "COMMIT"},
		}, final: tuples("1, 11"), kind: "incorrect-result", rule: "tidb-rr-statement-view", verdict: "bug", at: 2},
		{name: "read committed: a statement snapshot", level: target.ReadCommitted, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("11")},
			{conn: 1, sql: "COMMIT"},
		}, final: tuples("1, 11")},
		{name: "pessimistic DML skips an uncommitted insert", level: target.RepeatableRead, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "INSERT INTO t VALUES (2, 10)", affected: 1},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = 20 WHERE v = 10", affected: 1},
			{conn: 2, sql: "DELETE FROM t WHERE v = 10", affected: 0},
			{conn: 2, sql: "SELECT * FROM t WHERE v >= 10 FOR UPDATE", rows: tuples("1, 20")},
			{conn: 1, sql: "COMMIT"},
			{conn: 2, sql: "COMMIT"},
		}, final: tuples("1, 20", "2, 10")},
		{name: "pessimistic DML waits for a committed row's lock", level: target.ReadCommitted, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = 20 WHERE v >= 10", affected: 1},
		}, kind: "incorrect-blocking", rule: "tidb-rc-statement-view", verdict: "bug", at: 3},
		{name: "an autocommit UPDATE that changes nothing need not wait", level: target.RepeatableRead, steps: []step{
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = v + 1", affected: 1},
			{conn: 1, sql: "UPDATE t SET id = id", affected: 0},
			{conn: 2, sql: "COMMIT"},
		}, final: tuples("1, 11")},
		{name: "an autocommit UPDATE that changes the row waits", level: target.RepeatableRead, steps: []step{
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "UPDATE t SET v = v + 1", affected: 1},
			{conn: 1, sql: "UPDATE t SET v = 5", affected: 1},
			{conn: 2, sql: "COMMIT"},
		}, kind: "incorrect-blocking", rule: "tidb-rr-statement-view", verdict: "bug", at: 2},
		{name: "pingcap/tidb#28212", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (0, 0), (1, 1), (2, 2)"}, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SELECT * FROM t", rows: tuples("0, 0", "1, 1", "2, 2")},
			{conn: 2, sql: "UPDATE t SET a = 10 WHERE b = 1", affected: 1},
			{conn: 1, sql: "UPDATE t SET a = 10 WHERE TRUE", affected: 2},
			{conn: 1, sql: "SELECT * FROM t", rows: tuples("10, 0", "1, 1", "10, 2")},
			{conn: 1, sql: "COMMIT"},
		}, kind: "incorrect-result", rule: "tidb-28212-noop-update-view", verdict: "bug", at: 4},
		{name: "pingcap/tidb#28212, the documented view", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (0, 0), (1, 1), (2, 2)"}, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SELECT * FROM t", rows: tuples("0, 0", "1, 1", "2, 2")},
			{conn: 2, sql: "UPDATE t SET a = 10 WHERE b = 1", affected: 1},
			{conn: 1, sql: "UPDATE t SET a = 10 WHERE TRUE", affected: 2},
			{conn: 1, sql: "SELECT * FROM t", rows: tuples("10, 0", "10, 1", "10, 2")},
			{conn: 1, sql: "COMMIT"},
		}, final: tuples("10, 0", "10, 1", "10, 2")},
		{name: "BEGIN OPTIMISTIC: the loser's COMMIT fails", level: target.RepeatableRead, steps: []step{
			{conn: 1, sql: "BEGIN OPTIMISTIC"},
			{conn: 1, sql: "UPDATE t SET v = v + 1 WHERE id = 1", affected: 1},
			{conn: 2, sql: "BEGIN OPTIMISTIC"},
			{conn: 2, sql: "UPDATE t SET v = v + 2 WHERE id = 1", affected: 1},
			{conn: 2, sql: "COMMIT"},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("11")},
			{conn: 1, sql: "COMMIT", err: writeConflict},
		}, final: tuples("1, 12")},
		{name: "BEGIN OPTIMISTIC: a lost update", level: target.RepeatableRead, steps: []step{
			{conn: 1, sql: "BEGIN OPTIMISTIC"},
			{conn: 1, sql: "UPDATE t SET v = v + 1 WHERE id = 1", affected: 1},
			{conn: 2, sql: "BEGIN OPTIMISTIC"},
			{conn: 2, sql: "UPDATE t SET v = v + 2 WHERE id = 1", affected: 1},
			{conn: 2, sql: "COMMIT"},
			{conn: 1, sql: "COMMIT"},
		}, kind: "missing-error", rule: "tidb-optimistic-rr-statement-view", verdict: "bug", at: 5},
		{name: "optimistic session: plain BEGIN is optimistic, read committed is its snapshot", level: target.ReadCommitted, settings: opt, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("10")},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("10")},
			{conn: 1, sql: "UPDATE t SET v = v + 5 WHERE id = 1", affected: 1},
			{conn: 1, sql: "COMMIT", err: writeConflict},
		}, final: tuples("1, 11")},
		{name: "optimistic session: a statement snapshot is not optimistic read committed", level: target.ReadCommitted, settings: opt, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("10")},
			{conn: 2, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
			{conn: 1, sql: "SELECT v FROM t WHERE id = 1", rows: tuples("11")},
			{conn: 1, sql: "COMMIT"},
		}, kind: "incorrect-result", rule: "tidb-optimistic-rc-statement-view", verdict: "bug", at: 3},
		{name: "optimistic session: BEGIN PESSIMISTIC waits and writes the latest", level: target.RepeatableRead, settings: opt, steps: []step{
			{conn: 1, sql: "BEGIN PESSIMISTIC"},
			{conn: 1, sql: "UPDATE t SET v = v + 1 WHERE id = 1", affected: 1},
			{conn: 2, sql: "BEGIN PESSIMISTIC"},
			{conn: 1, sql: "COMMIT"},
			{conn: 2, sql: "UPDATE t SET v = v + 2 WHERE id = 1", affected: 1, from: 3},
			{conn: 2, sql: "COMMIT"},
		}, final: tuples("1, 13")},
		{name: "an optimistic UPDATE that changes nothing writes nothing", level: target.RepeatableRead, settings: opt, steps: []step{
			{conn: 2, sql: "BEGIN"},
			{conn: 3, sql: "UPDATE t SET v = 11", affected: 1},
			{conn: 2, sql: "UPDATE t SET v = COALESCE(v, 0)", affected: 0},
			{conn: 2, sql: "COMMIT"},
		}, final: tuples("1, 11")},
		{name: "an INSERT of a key another transaction deleted takes the row's place in the snapshot", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (c0 VARCHAR(20) NOT NULL PRIMARY KEY)", "INSERT INTO t VALUES ('a')"}, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "DELETE FROM t", affected: 1},
			{conn: 3, sql: "BEGIN"},
			{conn: 1, sql: "COMMIT"},
			{conn: 3, sql: "INSERT INTO t (c0) VALUES ('a')", affected: 1, from: 3},
			{conn: 3, sql: "SELECT * FROM t", rows: tuples("a")},
			{conn: 3, sql: "COMMIT"},
		}, final: tuples("a")},
		{name: "a key differing in case is another row (utf8mb4_bin)", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (c0 VARCHAR(20) NOT NULL PRIMARY KEY)", "INSERT INTO t VALUES ('a')"}, steps: []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "DELETE FROM t", affected: 1},
			{conn: 3, sql: "BEGIN"},
			{conn: 1, sql: "COMMIT"},
			{conn: 3, sql: "INSERT INTO t (c0) VALUES ('A')", affected: 1},
			{conn: 3, sql: "SELECT * FROM t", rows: tuples("A")},
			{conn: 3, sql: "COMMIT"},
		}, kind: "incorrect-result", rule: "tidb-rr-statement-view", verdict: "bug", at: 5},
		// Found by a TiDB campaign (seed 41): the DELETE waits for the row
		// it found matching; the other row matches only through the
		// holder's uncommitted change, so TiDB neither waits for it nor
		// deletes it.
		{name: "pessimistic DML skips a row an uncommitted change makes match", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (c0 VARCHAR(20))", "INSERT INTO t VALUES (NULL), ('a')"}, steps: []step{
			{conn: 3, sql: "BEGIN"},
			{conn: 3, sql: "UPDATE t SET c0 = NULL", affected: 1},
			{conn: 3, sql: "COMMIT"},
			{conn: 1, sql: "DELETE FROM t WHERE c0 IS NULL", affected: 1, from: 2},
		}, kind: "incorrect-affected", rule: "tidb-current-read-skips-uncommitted-change", verdict: "allowed", at: 3},
		{name: "pessimistic DML that re-reads the changed row after its wait", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (c0 VARCHAR(20))", "INSERT INTO t VALUES (NULL), ('a')"}, steps: []step{
			{conn: 3, sql: "BEGIN"},
			{conn: 3, sql: "UPDATE t SET c0 = NULL", affected: 1},
			{conn: 3, sql: "COMMIT"},
			{conn: 1, sql: "DELETE FROM t WHERE c0 IS NULL", affected: 2, from: 2},
		}},
		{name: "pingcap/tidb#57170: unistore's reverse scan reads the latest version", level: target.RepeatableRead, settings: unistore, setup: []string{
			"CREATE TABLE t (c0 INT, c1 INT)", "CREATE INDEX i ON t (c0)", "INSERT INTO t VALUES (1, 0), (5, 0)"}, steps: []step{
			{conn: 3, sql: "BEGIN"},
			{conn: 1, sql: "INSERT INTO t VALUES (9, 1)", affected: 1},
			{conn: 1, sql: "UPDATE t SET c0 = 2 WHERE c0 = 1", affected: 1},
			{conn: 3, sql: "SELECT * FROM t ORDER BY c0 DESC", rows: tuples("5, 0", "1, 0")},
			{conn: 3, sql: "SELECT c0 FROM t ORDER BY c0 DESC", rows: tuples("9", "5", "2")},
			{conn: 3, sql: "COMMIT"},
		}, kind: "incorrect-result", rule: "tidb-57170-unistore-reverse-scan", verdict: "bug", at: 4},
		{name: "pingcap/tidb#57170 in an optimistic SELECT FOR UPDATE", level: target.RepeatableRead, settings: map[string]string{"tidb_txn_mode": "optimistic", "tidb_config": `{"store": "unistore"}`}, setup: []string{
			"CREATE TABLE t (c0 DOUBLE NOT NULL PRIMARY KEY)", "INSERT INTO t VALUES (0)"}, steps: []step{
			{conn: 4, sql: "BEGIN"},
			{conn: 2, sql: "DELETE FROM t", affected: 1},
			{conn: 4, sql: "SELECT * FROM t ORDER BY t.c0 DESC FOR UPDATE"},
			{conn: 4, sql: "COMMIT"},
		}, kind: "incorrect-result", rule: "tidb-57170-unistore-reverse-scan", verdict: "bug", at: 2},
		{name: "pingcap/tidb#45677: an UPDATE's uncorrelated subquery reads the snapshot", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (c0 INT)", "CREATE TABLE t2 (c0 VARCHAR(20))", "INSERT INTO t VALUES (0)"}, steps: []step{
			{conn: 3, sql: "BEGIN"},
			{conn: 2, sql: "INSERT INTO t2 VALUES ('a')", affected: 1},
			{conn: 3, sql: "UPDATE t SET c0 = 6 WHERE EXISTS (SELECT * FROM t2 WHERE t2.c0 <> 'x' AND t.c0 = 0)", affected: 1},
			{conn: 3, sql: "UPDATE t SET c0 = 5 WHERE EXISTS (SELECT * FROM t2)", affected: 0},
			{conn: 3, sql: "COMMIT"},
		}, kind: "incorrect-affected", rule: "tidb-45677-dml-subquery-snapshot", verdict: "bug", at: 3},
		{name: "pingcap/tidb#45677: the locked row it then does not match", level: target.RepeatableRead, setup: []string{
			"CREATE TABLE t (c0 INT)", "CREATE TABLE t2 (c0 VARCHAR(20))", "INSERT INTO t VALUES (0)"}, steps: []step{
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "INSERT INTO t2 VALUES ('a')", affected: 1},
			{conn: 3, sql: "BEGIN"},
			{conn: 4, sql: "BEGIN"},
			{conn: 4, sql: "DELETE FROM t", affected: 1},
			{conn: 2, sql: "COMMIT"},
			{conn: 3, sql: "UPDATE t SET c0 = 0 WHERE EXISTS (SELECT * FROM t2)", affected: 0},
		}, kind: "incorrect-blocking", rule: "tidb-45677-dml-subquery-snapshot", verdict: "bug", at: 6},
		// TiDB v8.5.6, tidb_txn_mode=optimistic: the INSERTs of keys the
		// snapshot holds succeed, each transaction then sees its own row
		// in place of (t) or beside (u) the committed one, and the
		// COMMITs fail with 1062 (Constraints: the unique check is lazy).
		{name: "optimistic INSERT of a key its snapshot holds: the COMMIT fails", level: target.RepeatableRead, settings: opt, setup: lazySetup, steps: lazySteps(dupKey, dupKey)},
		{name: "optimistic INSERT of a key its snapshot holds, doctored: the COMMIT succeeds", level: target.RepeatableRead, settings: opt, setup: lazySetup, steps: lazySteps(dupKey, nil),
			kind: "missing-error", rule: "tidb-optimistic-rr-unique-check-at-commit", verdict: "bug", at: 8},
		// TiDB v8.5.6 optimistic: a ROLLBACK TO a savepoint set before the
		// INSERT undoes it, and the COMMIT succeeds (a 10-minute campaign's
		// false bug, 2026-11-27); one set after it does not.
		{name: "optimistic INSERT of a key its snapshot holds, undone by ROLLBACK TO: the COMMIT succeeds", level: target.RepeatableRead, settings: opt,
			setup: []string{"CREATE TABLE t1 (c2 INT NOT NULL PRIMARY KEY)", "INSERT INTO t1 (c2) VALUES (0)"}, steps: []step{
				{conn: 1, sql: "BEGIN"},
				{conn: 1, sql: "SAVEPOINT sp1"},
				{conn: 1, sql: "INSERT INTO t1 (c2) VALUES (0), (1)", affected: 2},
				{conn: 1, sql: "ROLLBACK TO SAVEPOINT sp1"},
				{conn: 1, sql: "SELECT * FROM t1", rows: tuples("0")},
				{conn: 1, sql: "COMMIT"},
			}},
		{name: "optimistic INSERT of a key its snapshot holds, a savepoint after it, doctored: the COMMIT succeeds", level: target.RepeatableRead, settings: opt,
			setup: []string{"CREATE TABLE t1 (c2 INT NOT NULL PRIMARY KEY)", "INSERT INTO t1 (c2) VALUES (0)"}, steps: []step{
				{conn: 1, sql: "BEGIN"},
				{conn: 1, sql: "INSERT INTO t1 (c2) VALUES (0), (1)", affected: 2},
				{conn: 1, sql: "SAVEPOINT sp1"},
				{conn: 1, sql: "ROLLBACK TO SAVEPOINT sp1"},
				{conn: 1, sql: "COMMIT"},
			}, kind: "missing-error", rule: "tidb-optimistic-rr-unique-check-at-commit", verdict: "bug", at: 4},
		// TiDB v8.5.6 optimistic (a 10-minute campaign's case, reduced):
		// T1's REPLACE deletes the row of its snapshot and inserts its key
		// again, beside the row another REPLACE committed since; T1 sees
		// its own row. The model once took the insert back with the delete.
		{name: "optimistic REPLACE of a key replaced since the snapshot: the transaction sees its row", level: target.RepeatableRead, settings: opt,
			setup: replaceSetup, steps: replaceSteps("hf, 21.02")},
		{name: "optimistic REPLACE of a key replaced since the snapshot, doctored: its row is gone", level: target.RepeatableRead, settings: opt,
			setup: replaceSetup, steps: replaceSteps(), kind: "incorrect-result", verdict: "bug", at: 3},
		{name: "pingcap/tidb#57170 is unistore's: MAX on TiKV", level: target.RepeatableRead, settings: map[string]string{"tidb_config": `{"store": "tikv"}`}, setup: []string{
			"CREATE TABLE t (c0 INT, c1 INT)", "CREATE INDEX i ON t (c0)", "INSERT INTO t VALUES (1, 0), (5, 0)"}, steps: []step{
			{conn: 3, sql: "BEGIN"},
			{conn: 1, sql: "INSERT INTO t VALUES (9, 1)", affected: 1},
			{conn: 3, sql: "SELECT MAX(c0) FROM t", rows: tuples("9")},
			{conn: 3, sql: "COMMIT"},
		}, kind: "incorrect-result", rule: "tidb-rr-statement-view", verdict: "bug", at: 2},
	}
	sess, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := model.NewEngine(model.Lookup("tidb", c.level, c.settings), sqlast.MySQL, sess)
			defer func() { sess.(target.TempTables).DropTemporary(ctx, eng.Tables()) }()
			su := setup
			if c.setup != nil {
				su = c.setup
			}
			if err := eng.Setup(ctx, su); err != nil {
				t.Fatal(err)
			}
			dev := replay(t, eng, c.steps)
			if dev == nil && c.final != nil {
				dev = eng.Final(ctx, target.State{"t": c.final})
			}
			outcome{c.kind, c.verdict, c.rule, c.at}.check(t, eng, dev)
		})
	}
}

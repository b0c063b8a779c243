package model_test

import (
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// spHead is a transaction that locks row 2, sets a savepoint, changes row 1
// and inserts row 3, and rolls back to the savepoint; the schedules below
// go on as each DBMS ran them (txlab run, 2026-11-27: PostgreSQL 15.18,
// MariaDB 10.11.19, TiDB v8.5.6), where another transaction updates row 1
// and a third inserts key 3 before the first commits.
func spHead() []step {
	return []step{
		{conn: 1, sql: "BEGIN"},
		{conn: 1, sql: "SELECT * FROM t WHERE id = 2 FOR UPDATE", rows: tuples("2, 20")},
		{conn: 1, sql: "SAVEPOINT s1"},
		{conn: 1, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
		{conn: 1, sql: "INSERT INTO t VALUES (3, 30)", affected: 1},
		{conn: 1, sql: "SELECT * FROM t", rows: tuples("1, 11", "2, 20", "3, 30")},
		{conn: 1, sql: "ROLLBACK TO SAVEPOINT s1"},
		{conn: 1, sql: "SELECT * FROM t", rows: tuples("1, 10", "2, 20")},
	}
}

// TestSavepoints: ROLLBACK TO SAVEPOINT undoes the changes made after the
// savepoint everywhere; PostgreSQL releases the locks taken since, TiDB's
// pessimistic transactions keep them, InnoDB keeps them but an inserted
// row's. The real schedules conform; doctored ones that break the
// documented lock (MySQL #95049: MariaDB released an UPDATE's lock) are
// flagged at the statement that should have waited.
func TestSavepoints(t *testing.T) {
	setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10), (2, 20)"}
	update := step{conn: 2, sql: "UPDATE t SET v = 12 WHERE id = 1", affected: 1}
	insert := step{conn: 3, sql: "INSERT INTO t VALUES (3, 31)", affected: 1}
	commit := step{conn: 1, sql: "COMMIT"}
	waited := func(s step, from int) step { s.from = from; return s }
	cases := []struct {
		name, dbms string
		d          sqlast.Dialect
		tail       []step
		// undoneShows doctors the SELECT after ROLLBACK TO SAVEPOINT to
		// show the undone UPDATE.
		undoneShows bool
		kind, rule  string // the deviation, "" for none
		at          int
	}{
		{name: "postgres releases both locks", dbms: "postgres", d: sqlast.Postgres, tail: []step{update, insert, commit}},
		{name: "postgres, doctored: the undone UPDATE still shows", dbms: "postgres", d: sqlast.Postgres, undoneShows: true,
			tail: []step{update, insert, commit}, kind: "incorrect-result", at: 7},
		{name: "mariadb keeps the UPDATE's lock, not the insert's", dbms: "mariadb", d: sqlast.MySQL, tail: []step{insert, commit, waited(update, 9)}},
		{name: "mariadb, doctored as MySQL #95049: the UPDATE does not wait", dbms: "mariadb", d: sqlast.MySQL, tail: []step{insert, update, commit},
			kind: "incorrect-blocking", rule: "mysql-95049-savepoint-rollback-releases-locks", at: 9},
		{name: "tidb keeps both locks", dbms: "tidb", d: sqlast.MySQL, tail: []step{commit, waited(update, 8), waited(insert, 8)}},
		{name: "tidb, doctored: the UPDATE does not wait", dbms: "tidb", d: sqlast.MySQL, tail: []step{update, commit, waited(insert, 9)},
			kind: "incorrect-blocking", rule: "tidb-rr-statement-view", at: 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := connecttest.Target(t, c.dbms)
			eng := newEngine(t, tg, model.Lookup(c.dbms, target.RepeatableRead, nil), setup)
			steps := append(spHead(), c.tail...)
			if c.undoneShows {
				steps[7].rows = tuples("1, 11", "2, 20")
			}
			outcome{c.kind, "bug", c.rule, c.at}.check(t, eng, replay(t, eng, steps))
		})
	}
}

// TestSavepointReadView: MariaDB 10.11.19 at REPEATABLE READ (txlab run,
// 2026-11-27) takes a new read view after ROLLBACK TO a savepoint set
// before the transaction's first statement: the server rolls back InnoDB's
// whole part of the transaction, which joined after the savepoint. The
// model names that rule when the savepoint came first, keeps the generic
// statement-view rule when a statement ran before it, and lets the
// documented outcome (the snapshot kept) through.
func TestSavepointReadView(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)"}
	for _, c := range []struct {
		name  string
		first bool // the savepoint is the transaction's first statement
		rows  []target.Row
		want  outcome
	}{
		{"as run", true, tuples("1, 10", "2, 20"), outcome{"incorrect-result", "bug", "innodb-savepoint-rollback-drops-read-view", 6}},
		{"snapshot kept", true, tuples("1, 10"), outcome{}},
		{"a statement before the savepoint", false, tuples("1, 10", "2, 20"), outcome{"incorrect-result", "bug", "mariadb-rr-statement-view", 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := newEngine(t, tg, model.Lookup("mariadb", target.RepeatableRead, nil), setup)
			before := step{conn: 2, sql: "SELECT * FROM t WHERE id = 1", rows: tuples("1, 10")}
			if c.first {
				before = step{conn: 3, sql: "SELECT * FROM t WHERE id = 1", rows: tuples("1, 10")}
			}
			sch := []step{
				{conn: 2, sql: "BEGIN"},
				before,
				{conn: 2, sql: "SAVEPOINT sp1"},
				{conn: 2, sql: "SELECT * FROM t", rows: tuples("1, 10")},
				{conn: 1, sql: "INSERT INTO t VALUES (2, 20)", affected: 1},
				{conn: 2, sql: "ROLLBACK TO SAVEPOINT sp1"},
				{conn: 2, sql: "SELECT * FROM t", rows: c.rows},
				{conn: 2, sql: "COMMIT"},
			}
			c.want.check(t, eng, replay(t, eng, sch))
		})
	}
}

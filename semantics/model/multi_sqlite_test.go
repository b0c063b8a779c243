package model_test

import (
	"context"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// updateFromSetup: t's rows 1 and 2 meet one row of u each; m holds two
// rows for t's row 1 (no key).
var updateFromSetup = []string{
	"CREATE TABLE t (id INT PRIMARY KEY, v INT)",
	"CREATE TABLE u (id INT PRIMARY KEY, w INT)",
	"CREATE TABLE m (id INT, w INT)",
	"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
	"INSERT INTO u VALUES (1, 100), (2, 200)",
	"INSERT INTO m VALUES (1, 5), (1, 6)",
}

// TestUpdateFromSQLite: SQLite's UPDATE … FROM reads its FROM tables at
// the transaction's snapshot with its own changes, as a subquery does
// (Isolation In SQLite: one writer, reads from the transaction's
// snapshot). The schedule as SQLite ran it is judged to its end;
// doctored ones (an affected count, a read after it) are flagged; a
// target row that meets two rows of m, whose values come from one chosen
// arbitrarily (lang_update.html), stops the model where the values read
// m, and is judged where they do not.
func TestUpdateFromSQLite(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	steps := func() []step {
		return []step{
			{conn: 1, sql: "BEGIN"},
			{conn: 1, sql: "UPDATE u SET w = 150 WHERE id = 1", affected: 1},
			{conn: 1, sql: "UPDATE t SET v = u.w FROM u WHERE u.id = t.id", affected: 2},
			{conn: 1, sql: "SELECT * FROM t", rows: tuples("1, 150", "2, 200", "3, 30")},
			{conn: 1, sql: "COMMIT"},
			{conn: 2, sql: "UPDATE t SET v = t.v + 1 FROM u WHERE u.id = t.id AND u.w > 160", affected: 1},
			{conn: 2, sql: "SELECT * FROM t", rows: tuples("1, 150", "2, 201", "3, 30")},
			{conn: 2, sql: "UPDATE t SET v = t.v - 1 FROM m WHERE m.id = t.id", affected: 1},
			{conn: 2, sql: "SELECT * FROM t", rows: tuples("1, 149", "2, 201", "3, 30")},
		}
	}
	for _, c := range []struct {
		name   string
		doctor func([]step)
		kind   string
		at     int
		halt   string
	}{
		{name: "as run", doctor: func([]step) {}},
		{name: "doctored: the FROM join affects a row it does not meet", doctor: func(s []step) { s[2].affected = 3 }, kind: "incorrect-affected", at: 2},
		{name: "doctored: the join read u before the transaction's own change", doctor: func(s []step) {
			s[3].rows = tuples("1, 100", "2, 200", "3, 30")
		}, kind: "incorrect-result", at: 3},
		{name: "values from one of two joined rows", doctor: func(s []step) {
			s[7] = step{conn: 2, sql: "UPDATE t SET v = m.w FROM m WHERE m.id = t.id", affected: 1}
			s[8].rows = tuples("1, 5", "2, 201", "3, 30")
		}, halt: "open rows: multi-table-update"},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := newEngine(t, tg, model.Lookup("sqlite", target.Serializable, nil), updateFromSetup)
			sch := steps()
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

// TestUpdateFromSQLiteRun: the schedule above, run by SQLite, conforms.
func TestUpdateFromSQLiteRun(t *testing.T) {
	ctx := context.Background()
	tg := connecttest.Target(t, "sqlite")
	txt := ""
	for _, s := range updateFromSetup {
		txt += s + ";\n"
	}
	txt += "1> BEGIN;\n1> UPDATE u SET w = 150 WHERE id = 1;\n1> UPDATE t SET v = u.w FROM u WHERE u.id = t.id;\n1> SELECT * FROM t;\n1> COMMIT;\n" +
		"2> UPDATE t SET v = t.v + 1 FROM u WHERE u.id = t.id AND u.w > 160;\n2> SELECT * FROM t;\n" +
		"2> UPDATE t SET v = t.v - 1 FROM m WHERE m.id = t.id;\n2> SELECT * FROM t;\n"
	cs, err := testcase.ParseString("update-from", txt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Run(ctx, tg, cs, executor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &conform.Checker{}
	defer c.Close()
	conf, err := c.Check(ctx, tg, cs, res)
	if err != nil {
		t.Fatal(err)
	}
	if !conf.Conforms() || conf.Halted != "" {
		t.Errorf("halted %q (%s), deviation %v", conf.Halted, conf.Reason, conf.Deviation)
	}
	for _, ev := range res.Events {
		if ev.Error != nil {
			t.Errorf("%s: %v", ev.SQL, ev.Error)
		}
	}
}

// TestCrossTableHalts: the writes across tables the model does not follow
// (on a DBMS whose rules have no Joins or Merge, or of a form it does not
// rewrite)
// stop it with the feature's name as the reason (the engine stops before
// it evaluates anything, so SQLite's session serves every dialect here).
func TestCrossTableHalts(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	for _, c := range []struct {
		dbms string
		d    sqlast.Dialect
		sql  string
		want string
	}{
		{"cockroach", sqlast.Postgres, "UPDATE t SET v = u.w FROM u WHERE u.id = t.id", "not modelled: multi-table-update"},
		{"cockroach", sqlast.Postgres, "DELETE FROM t USING u WHERE u.id = t.id", "not modelled: multi-table-delete"},
		{"postgres", sqlast.Postgres, "UPDATE t SET v = (SELECT max(w) FROM u) FROM u WHERE u.id = t.id", "not modelled: multi-table-update with subqueries"},
		{"cockroach", sqlast.Postgres, "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE", "not modelled: merge"},
		{"postgres", sqlast.Postgres, "WITH d AS (DELETE FROM u RETURNING id) DELETE FROM t WHERE id IN (SELECT id FROM d)", "not modelled: cte-write"},
		{"postgres", sqlast.Postgres, "WITH d AS (DELETE FROM u RETURNING id), e AS (DELETE FROM t RETURNING id) SELECT * FROM d", "not modelled: cte-write"},
		{"postgres", sqlast.Postgres, "WITH d AS (DELETE FROM u RETURNING id) SELECT * FROM d JOIN t ON t.id = d.id", "not modelled: cte-write"},
	} {
		t.Run(c.dbms+"/"+c.want, func(t *testing.T) {
			eng := newEngine(t, tg, model.Lookup(c.dbms, target.ReadCommitted, nil), updateFromSetup[:2])
			dev := replay(t, eng, []step{{conn: 1, sql: "BEGIN"}, {conn: 1, sql: c.sql, affected: 1}, {conn: 1, sql: "COMMIT"}})
			if dev != nil || eng.HaltReason() != c.want {
				t.Errorf("deviation %v, halted %q; want %q", dev, eng.HaltReason(), c.want)
			}
		})
	}
}

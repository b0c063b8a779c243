package model_test

import (
	"context"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// cteSteps: at read committed, a data-modifying CTE whose UPDATE waits for
// another transaction's UPDATE of row 1 re-checks the row's new version
// and updates it (EvalPlanQual), as a plain UPDATE does; the body returns
// the rows the CTE wrote (PostgreSQL 15.18 ran it so, txlab run,
// 2026-11-27; TestCTEWriteRun runs it again).
func cteSteps() []step {
	return []step{
		{conn: 1, sql: "BEGIN"},
		{conn: 1, sql: "UPDATE t SET v = 11 WHERE id = 1", affected: 1},
		{conn: 2, sql: "BEGIN"},
		{conn: 1, sql: "COMMIT"},
		{conn: 2, sql: "WITH w AS (UPDATE t SET v = v + 100 WHERE id <= 2 RETURNING id, v) SELECT * FROM w", rows: tuples("1, 111", "2, 120"), from: 3},
		{conn: 2, sql: "WITH w AS (DELETE FROM t WHERE v > 115 RETURNING id) SELECT COUNT(*) FROM w", rows: tuples("1")},
		{conn: 2, sql: "SELECT * FROM t", rows: tuples("1, 111", "3, 30")},
		{conn: 2, sql: "COMMIT"},
	}
}

var cteSetup = []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)"}

// TestCTEWrite: a data-modifying CTE that is its statement's only write,
// read by a body that reads nothing else, is judged as its write: the
// schedule as run conforms; doctored ones are flagged (the body returned
// fewer rows than the CTE wrote; the waiting UPDATE did not re-check the
// row's new version).
func TestCTEWrite(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	for _, c := range []struct {
		name   string
		doctor func([]step)
		kind   string
		at     int
	}{
		{"as run", func([]step) {}, "", 0},
		{"doctored: the body returns one row of two written", func(s []step) { s[4].rows = tuples("1, 111") }, "incorrect-affected", 4},
		{"doctored: the CTE's UPDATE wrote the old version", func(s []step) {
			s[4].rows = tuples("1, 110", "2, 120")
			s[6].rows = tuples("1, 110", "3, 30")
		}, "incorrect-result", 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := newEngine(t, tg, model.Lookup("postgres", target.ReadCommitted, nil), cteSetup)
			sch := cteSteps()
			c.doctor(sch)
			outcome{c.kind, "bug", "", c.at}.check(t, eng, replay(t, eng, sch))
		})
	}
}

// TestCTEWriteRun: the schedule of cteSteps, run by PostgreSQL, conforms.
func TestCTEWriteRun(t *testing.T) {
	ctx := context.Background()
	tg := connecttest.Target(t, "postgres")
	txt := "-- isolation: read-committed\n" + cteSetup[0] + ";\n" + cteSetup[1] + ";\n"
	// Submitted order: the CTE before the COMMIT it waits for.
	steps := cteSteps()
	steps[3], steps[4] = steps[4], steps[3]
	for _, s := range steps {
		txt += string(rune('0'+s.conn)) + "> " + s.sql + ";\n"
	}
	cs, err := testcase.ParseString("cte-write", txt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Run(ctx, tg, cs, executor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	blocked := false
	for _, ev := range res.Events {
		if ev.Error != nil {
			t.Fatalf("%s: %v", ev.SQL, ev.Error)
		}
		blocked = blocked || ev.Status == executor.StatusBlocked
	}
	if !blocked {
		t.Errorf("the CTE's UPDATE did not wait:\n%v", res.Events)
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
}

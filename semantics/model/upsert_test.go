package model_test

import (
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// TestPostgresUpsertNoOpLocks: PostgreSQL's ON CONFLICT DO UPDATE locks
// the row it meets even when it changes no value, so another
// transaction's SKIP LOCKED read leaves the row out (measured on 15.18; a
// 10-minute campaign's false bug before the model knew). The real
// schedule conforms; one where the read returned the row is flagged.
func TestPostgresUpsertNoOpLocks(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	setup := []string{"CREATE TABLE t1 (c0 INT, c2 INT NOT NULL PRIMARY KEY)", "INSERT INTO t1 VALUES (13, 12)"}
	steps := func() []step {
		return []step{
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "INSERT INTO t1 (c0, c2) VALUES (13, 12) ON CONFLICT (c2) DO UPDATE SET c0 = EXCLUDED.c0", affected: 1},
			{conn: 1, sql: "SELECT * FROM t1 FOR NO KEY UPDATE SKIP LOCKED"},
			{conn: 2, sql: "COMMIT"},
			{conn: 1, sql: "SELECT * FROM t1", rows: tuples("13, 12")},
		}
	}
	for _, level := range []target.Level{target.ReadCommitted, target.RepeatableRead} {
		for _, c := range []struct {
			name   string
			doctor func([]step)
			want   outcome
		}{
			{"as run", func([]step) {}, outcome{}},
			{"skip locked returns the upserted row", func(s []step) { s[2].rows = tuples("13, 12") }, outcome{kind: "incorrect-result", verdict: "bug", at: 2}},
		} {
			t.Run(string(level)+"/"+c.name, func(t *testing.T) {
				eng := newEngine(t, tg, model.Lookup("postgres", level, nil), setup)
				sch := steps()
				c.doctor(sch)
				c.want.check(t, eng, replay(t, eng, sch))
			})
		}
	}
}

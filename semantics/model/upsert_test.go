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

// TestInnoDBUpsertNoOpLocks: InnoDB's ON DUPLICATE KEY UPDATE that
// leaves the duplicate row as it was counts 0 rows and writes nothing, but
// holds the exclusive lock of its duplicate check (MySQL 8.0 manual
// 17.7.3; measured on MariaDB 10.11.19: another transaction's SKIP LOCKED
// read leaves the row out, its UPDATE waits). One that changes the row
// counts 2.
func TestInnoDBUpsertNoOpLocks(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	setup := []string{"CREATE TABLE t1 (c0 INT, c2 INT NOT NULL PRIMARY KEY)", "INSERT INTO t1 VALUES (13, 12)"}
	steps := func(c0 string, affected int64) []step {
		return []step{
			{conn: 2, sql: "BEGIN"},
			{conn: 2, sql: "INSERT INTO t1 (c0, c2) VALUES (" + c0 + ", 12) ON DUPLICATE KEY UPDATE c0 = VALUES(c0)", affected: affected},
			{conn: 1, sql: "SELECT * FROM t1 FOR UPDATE SKIP LOCKED"},
			{conn: 2, sql: "COMMIT"},
			{conn: 1, sql: "SELECT * FROM t1", rows: tuples(c0 + ", 12")},
		}
	}
	for _, level := range []target.Level{target.ReadCommitted, target.RepeatableRead} {
		for _, c := range []struct {
			name  string
			steps []step
			want  outcome
		}{
			{"as run: no change, 0 rows", steps("13", 0), outcome{}},
			{"a change, 2 rows", steps("14", 2), outcome{}},
			{"doctored: skip locked returns the duplicate row", func() []step { s := steps("13", 0); s[2].rows = tuples("13, 12"); return s }(), outcome{kind: "incorrect-result", verdict: "bug", at: 2}},
		} {
			t.Run(string(level)+"/"+c.name, func(t *testing.T) {
				eng := newEngine(t, tg, model.Lookup("mariadb", level, nil), setup)
				c.want.check(t, eng, replay(t, eng, c.steps))
			})
		}
	}
}

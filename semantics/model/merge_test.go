package model_test

import (
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// mergeSetup: a's rows meet b's through a.k = b.id; b's row 3 meets none,
// b's row 1 two of a's.
var mergeSetup = []string{
	"CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT)",
	"CREATE TABLE b (id INT PRIMARY KEY, w INT)",
	"INSERT INTO a VALUES (1, 1, 0), (2, 2, 0), (3, 1, 0)",
	"INSERT INTO b VALUES (1, 10), (2, 20), (3, 30)",
}

// mergeWithout is the table's rules with one rule taken away (or changed),
// and what they give on the schedule as run: a deviation of kind at step
// at, or a halt (kind "").
type mergeWithout struct {
	name string
	rule func(*model.Rules)
	kind string
	at   int
}

// mergeCase is a schedule of PostgreSQL's MERGE as PostgreSQL 15.18 and
// 18.4 ran it (the corpus's bugs/doc-pg-merge-*.txn hold the same
// schedules as cases), judged by the table's rules (no deviation, no
// halt), by the rules without Merge (a halt), by the rules without each
// rule it needs (a deviation or a halt), and doctored (a deviation).
type mergeCase struct {
	name    string
	levels  []target.Level
	steps   func() []step
	without []mergeWithout
	doctor  func([]step)
	kind    string
	at      int
}

func (c mergeCase) run(t *testing.T, tg target.Target) {
	for _, level := range c.levels {
		rules := func() model.Rules {
			r := model.Lookup("postgres", level, nil)
			if r.Merge == nil {
				t.Fatalf("postgres at %s: no Merge", level)
			}
			m := *r.Merge
			r.Merge = &m
			r.Target, r.Source = clone(r.Target), clone(r.Source)
			return r
		}
		t.Run(string(level)+"/"+c.name+"/as run", func(t *testing.T) {
			eng := newEngine(t, tg, rules(), mergeSetup)
			outcome{}.check(t, eng, replay(t, eng, c.steps()))
		})
		t.Run(string(level)+"/"+c.name+"/without merge", func(t *testing.T) {
			r := rules()
			r.Merge = nil
			eng := newEngine(t, tg, r, mergeSetup)
			if dev := replay(t, eng, c.steps()); dev != nil || eng.HaltReason() != "not modelled: merge" {
				t.Fatalf("deviation %v, halted %q; want not modelled: merge", dev, eng.HaltReason())
			}
		})
		for _, w := range c.without {
			t.Run(string(level)+"/"+c.name+"/without "+w.name, func(t *testing.T) {
				r := rules()
				w.rule(&r)
				eng := newEngine(t, tg, r, mergeSetup)
				dev := replay(t, eng, c.steps())
				if w.kind == "" {
					if dev != nil || eng.Halted() == "" {
						t.Fatalf("deviation %v, halted %q; want a halt", dev, eng.Halted())
					}
					return
				}
				if dev == nil || dev.Kind != w.kind || dev.Stmt.Step != w.at {
					t.Fatalf("deviation %+v (halted %q); want %s at step %d", dev, eng.Halted(), w.kind, w.at)
				}
			})
		}
		if c.doctor != nil {
			t.Run(string(level)+"/"+c.name+"/doctored", func(t *testing.T) {
				eng := newEngine(t, tg, rules(), mergeSetup)
				sch := c.steps()
				c.doctor(sch)
				outcome{c.kind, "bug", "", c.at}.check(t, eng, replay(t, eng, sch))
			})
		}
	}
}

func clone(m map[model.Kind]model.Read) map[model.Kind]model.Read {
	out := map[model.Kind]model.Read{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestMergePostgres: PostgreSQL's MERGE, measured on 15.18 and 18.4
// (bugs/doc-pg-merge-*.txn): each matched pair takes the first WHEN
// MATCHED clause whose condition holds, each unmatched source row the first
// WHEN NOT MATCHED one; at READ COMMITTED a row changed while the MERGE
// waited for it is re-checked from the first clause on its new version, and
// one whose new version no longer meets its source row (or is deleted)
// sends that source row to the NOT MATCHED clauses, although another target
// row meets it; DO NOTHING neither waits nor fails at REPEATABLE READ; a row
// it updates or deletes that changed after a REPEATABLE READ snapshot is a
// serialization failure.
func TestMergePostgres(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	rc, rr := target.ReadCommitted, target.RepeatableRead
	merge := "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED THEN UPDATE SET v = b.w WHEN NOT MATCHED THEN INSERT VALUES (b.id + 10, b.id, b.w)"
	for _, c := range []mergeCase{
		{
			// The second MERGE reads the DISTINCT subquery source the
			// generator writes: one row per value.
			name: "clauses in order", levels: []target.Level{rc, rr},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND b.w = 10 AND a.id = 1 THEN UPDATE SET v = b.w WHEN MATCHED AND a.id = 3 THEN DO NOTHING WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (b.id + 10, b.id, b.w)", affected: 3},
					{conn: 1, sql: "SELECT * FROM a", rows: tuples("1, 1, 10", "3, 1, 0", "13, 3, 30")},
					{conn: 1, sql: "MERGE INTO a USING (SELECT DISTINCT w / 10 AS k FROM b WHERE w > 10) AS s0 ON a.k = s0.k WHEN MATCHED THEN UPDATE SET v = s0.k WHEN NOT MATCHED THEN INSERT (id, k, v) VALUES (s0.k + 20, s0.k, 0)", affected: 2},
					{conn: 1, sql: "SELECT * FROM a", rows: tuples("1, 1, 10", "3, 1, 0", "13, 3, 3", "22, 2, 0")},
				}
			},
			doctor: func(s []step) { s[1].rows = tuples("1, 1, 10", "13, 3, 30") }, kind: "incorrect-result", at: 1,
		},
		{
			name: "a DISTINCT subquery source counted", levels: []target.Level{rc, rr},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "MERGE INTO a USING (SELECT DISTINCT w / 10 AS k FROM b WHERE w > 10) AS s0 ON a.k = s0.k WHEN MATCHED THEN UPDATE SET v = s0.k WHEN NOT MATCHED THEN INSERT (id, k, v) VALUES (s0.k + 20, s0.k, 0)", affected: 2},
				}
			},
			doctor: func(s []step) { s[0].affected = 3 }, kind: "incorrect-affected", at: 0,
		},
		{
			// The snapshot version (v = 0) takes the UPDATE, the new one
			// (v = 5) the DELETE.
			name: "re-check from the first clause", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "UPDATE a SET v = 5 WHERE id = 1", affected: 1},
					{conn: 1, sql: "COMMIT"},
					{conn: 2, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.v = 0 THEN UPDATE SET v = 100 WHEN MATCHED THEN DELETE", affected: 3, from: 2},
					{conn: 2, sql: "SELECT * FROM a", rows: tuples("2, 2, 100", "3, 1, 100")},
				}
			},
			without: []mergeWithout{
				{name: "RecheckFromFirst", rule: func(r *model.Rules) { r.Merge.RecheckFromFirst = false }},
				{name: "the re-check", rule: func(r *model.Rules) { r.Target[model.KindMerge] = model.SnapStatement }, kind: "incorrect-result", at: 4},
			},
			doctor: func(s []step) { s[4].rows = tuples("1, 1, 100", "2, 2, 100", "3, 1, 100") }, kind: "incorrect-result", at: 4,
		},
		{
			// The new version (k = 9) meets no source row: b's row 1 goes
			// to NOT MATCHED although a's row 3 meets it.
			name: "re-check of a changed join key", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "UPDATE a SET k = 9 WHERE id = 1", affected: 1},
					{conn: 1, sql: "COMMIT"},
					{conn: 2, sql: merge, affected: 4, from: 2},
					{conn: 2, sql: "SELECT * FROM a", rows: tuples("1, 9, 0", "2, 2, 20", "3, 1, 10", "11, 1, 10", "13, 3, 30")},
				}
			},
			without: []mergeWithout{
				{name: "RecheckNotMatched", rule: func(r *model.Rules) { r.Merge.RecheckNotMatched = false }},
				{name: "the re-check", rule: func(r *model.Rules) { r.Target[model.KindMerge] = model.SnapStatement }, kind: "incorrect-result", at: 4},
			},
			doctor: func(s []step) {
				s[3].affected = 3
				s[4].rows = tuples("1, 9, 0", "2, 2, 20", "3, 1, 10", "13, 3, 30")
			}, kind: "incorrect-affected", at: 3,
		},
		{
			name: "re-check of a deleted row", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "DELETE FROM a WHERE id = 1", affected: 1},
					{conn: 1, sql: "COMMIT"},
					{conn: 2, sql: merge, affected: 4, from: 2},
					{conn: 2, sql: "SELECT * FROM a", rows: tuples("2, 2, 20", "3, 1, 10", "11, 1, 10", "13, 3, 30")},
				}
			},
			without: []mergeWithout{
				{name: "RecheckNotMatched", rule: func(r *model.Rules) { r.Merge.RecheckNotMatched = false }},
			},
			doctor: func(s []step) { s[3].affected = 3 }, kind: "incorrect-affected", at: 3,
		},
		{
			// The re-check over the generator's subquery source: s0's row
			// 1 goes to the second NOT MATCHED clause.
			name: "re-check over a subquery source", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "UPDATE a SET k = 9 WHERE id = 1", affected: 1},
					{conn: 1, sql: "COMMIT"},
					{conn: 2, sql: "MERGE INTO a USING (SELECT DISTINCT id AS k FROM b) AS s0 ON a.k = s0.k WHEN MATCHED AND a.id <> 2 THEN UPDATE SET v = s0.k WHEN MATCHED THEN DO NOTHING WHEN NOT MATCHED AND s0.k > 1 THEN INSERT (id, k, v) VALUES (s0.k + 10, s0.k, 0) WHEN NOT MATCHED THEN INSERT (id, k, v) VALUES (s0.k + 20, s0.k, 1)", affected: 3, from: 2},
					{conn: 2, sql: "SELECT * FROM a", rows: tuples("1, 9, 0", "2, 2, 0", "3, 1, 1", "13, 3, 0", "21, 1, 1")},
				}
			},
			doctor: func(s []step) { s[4].rows = tuples("1, 9, 0", "2, 2, 0", "3, 1, 1", "13, 3, 0") }, kind: "incorrect-result", at: 4,
		},
		{
			// The SKIP LOCKED read skips row 1, which the MERGE locked to
			// re-check it and left as it was (its new version, v = 5, takes
			// no clause): whether it holds that lock is left open, as the
			// lock of a row any write waited for is.
			name: "the lock of a re-checked row", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "UPDATE a SET v = 5 WHERE id = 1", affected: 1},
					{conn: 2, sql: "BEGIN"},
					{conn: 1, sql: "COMMIT"},
					{conn: 2, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.v = 0 THEN UPDATE SET v = 100", affected: 2, from: 3},
					{conn: 3, sql: "SELECT * FROM a FOR UPDATE SKIP LOCKED"},
					{conn: 2, sql: "COMMIT"},
				}
			},
			// The rows it wrote it holds locked.
			doctor: func(s []step) { s[5].rows = tuples("2, 2, 0") }, kind: "incorrect-result", at: 5,
		},
		{
			// Row 1 is locked: the MERGE's DO NOTHING does not wait for it.
			name: "DO NOTHING takes no lock", levels: []target.Level{rc, rr},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "UPDATE a SET v = 5 WHERE id = 1", affected: 1},
					{conn: 2, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.id = 1 THEN DO NOTHING WHEN MATCHED THEN UPDATE SET v = b.w", affected: 2},
					{conn: 1, sql: "COMMIT"},
				}
			},
			doctor: func(s []step) {
				s[2].sql = "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.id = 1 THEN DELETE WHEN MATCHED THEN UPDATE SET v = b.w"
				s[2].affected = 3
			}, kind: "incorrect-blocking", at: 2,
		},
		{
			// FOR KEY SHARE blocks the DELETE, not the UPDATE of v.
			name: "lock strength by action", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "SELECT * FROM a WHERE id = 1 FOR KEY SHARE", rows: tuples("1, 1, 0")},
					{conn: 2, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED THEN UPDATE SET v = b.w", affected: 3},
					{conn: 1, sql: "COMMIT"},
					{conn: 2, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.id = 2 THEN UPDATE SET v = b.w WHEN MATCHED THEN DELETE", affected: 3, from: 3},
					{conn: 2, sql: "SELECT * FROM a", rows: tuples("2, 2, 20")},
				}
			},
			doctor: func(s []step) {
				s[2].sql = "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.id = 1 THEN DELETE"
				s[2].affected = 1
				s[4].affected = 2
				s[5].rows = tuples("2, 2, 20")
			}, kind: "incorrect-blocking", at: 2,
		},
		{
			// The source is read as the statement's snapshot (RC) or the
			// transaction's (RR) reads it.
			name: "source read at its snapshot", levels: []target.Level{rc},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "SELECT * FROM a", rows: tuples("1, 1, 0", "2, 2, 0", "3, 1, 0")},
					{conn: 2, sql: "UPDATE b SET w = 11 WHERE id = 1", affected: 1},
					{conn: 1, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED THEN UPDATE SET v = b.w", affected: 3},
					{conn: 1, sql: "SELECT * FROM a", rows: tuples("1, 1, 11", "2, 2, 20", "3, 1, 11")},
					{conn: 1, sql: "COMMIT"},
				}
			},
			without: []mergeWithout{
				{name: "the statement's snapshot", rule: func(r *model.Rules) { r.Source[model.KindMerge] = model.SnapTxn }, kind: "incorrect-result", at: 4},
			},
			doctor: func(s []step) { s[4].rows = tuples("1, 1, 10", "2, 2, 20", "3, 1, 10") }, kind: "incorrect-result", at: 4,
		},
		{
			name: "source read at its snapshot", levels: []target.Level{rr},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "SELECT * FROM a", rows: tuples("1, 1, 0", "2, 2, 0", "3, 1, 0")},
					{conn: 2, sql: "UPDATE b SET w = 11 WHERE id = 1", affected: 1},
					{conn: 1, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED THEN UPDATE SET v = b.w", affected: 3},
					{conn: 1, sql: "SELECT * FROM a", rows: tuples("1, 1, 10", "2, 2, 20", "3, 1, 10")},
					{conn: 1, sql: "COMMIT"},
				}
			},
			without: []mergeWithout{
				{name: "the transaction's snapshot", rule: func(r *model.Rules) { r.Source[model.KindMerge] = model.SnapStatement }, kind: "incorrect-result", at: 4},
			},
			doctor: func(s []step) { s[4].rows = tuples("1, 1, 11", "2, 2, 20", "3, 1, 11") }, kind: "incorrect-result", at: 4,
		},
		{
			// Connections 1 and 3 take their snapshots before connection 2
			// changes row 1: the MERGE that updates it fails (40001), the
			// one that leaves it alone does not.
			name: "a changed row", levels: []target.Level{rr, target.Serializable},
			steps: func() []step {
				return []step{
					{conn: 1, sql: "BEGIN"},
					{conn: 1, sql: "SELECT * FROM b", rows: tuples("1, 10", "2, 20", "3, 30")},
					{conn: 3, sql: "BEGIN"},
					{conn: 3, sql: "SELECT * FROM b", rows: tuples("1, 10", "2, 20", "3, 30")},
					{conn: 2, sql: "UPDATE a SET v = 5 WHERE id = 1", affected: 1},
					{conn: 1, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED THEN UPDATE SET v = b.w", err: &target.Error{Code: "40001", Class: target.ClassSerialization, RolledBack: true}},
					{conn: 3, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED AND a.id = 1 THEN DO NOTHING WHEN MATCHED THEN UPDATE SET v = b.w", affected: 2},
					{conn: 3, sql: "SELECT * FROM a", rows: tuples("1, 1, 0", "2, 2, 20", "3, 1, 10")},
					{conn: 3, sql: "COMMIT"},
				}
			},
			doctor: func(s []step) { s[5].err, s[5].affected = nil, 3 }, kind: "missing-error", at: 5,
		},
	} {
		c.run(t, tg)
	}
}

// TestMergeHalts: what the model leaves undecided about MERGE stops it,
// never flags: a target row that meets several source rows (which pair
// PostgreSQL takes first is the join's order), a MERGE into a table a
// foreign key names, one whose source reads its target.
func TestMergeHalts(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	for _, c := range []struct {
		name  string
		setup []string
		steps []step
		want  string
	}{
		{
			name:  "several source rows",
			steps: []step{{conn: 1, sql: "MERGE INTO a USING b ON a.k <= b.id WHEN MATCHED THEN DO NOTHING", affected: 0}},
			want:  "open rows: MERGE meets a target row twice",
		},
		{
			name:  "a source that reads the target",
			steps: []step{{conn: 1, sql: "MERGE INTO a USING (SELECT DISTINCT k FROM a) AS s0 ON a.id = s0.k WHEN MATCHED THEN DELETE", affected: 2}},
			want:  "not modelled: merge whose source reads its target",
		},
		{
			name: "a foreign key",
			setup: []string{"CREATE TABLE b (id INT PRIMARY KEY, w INT)", "CREATE TABLE a (id INT PRIMARY KEY, k INT REFERENCES b (id), v INT)",
				"INSERT INTO b VALUES (1, 10)", "INSERT INTO a VALUES (1, 1, 0)"},
			steps: []step{{conn: 1, sql: "MERGE INTO a USING b ON a.k = b.id WHEN MATCHED THEN DELETE", affected: 1}},
			want:  "not modelled: merge under a foreign key",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup := c.setup
			if setup == nil {
				setup = mergeSetup
			}
			eng := newEngine(t, tg, model.Lookup("postgres", target.ReadCommitted, nil), setup)
			if dev := replay(t, eng, c.steps); dev != nil || eng.HaltReason() != c.want {
				t.Fatalf("deviation %v, halted %q (%s); want %q", dev, eng.HaltReason(), eng.Halted(), c.want)
			}
		})
	}
}

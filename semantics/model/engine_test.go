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

func rows(vals ...string) []target.Row {
	var out []target.Row
	for _, v := range vals {
		out = append(out, target.Row{target.Str(v)})
	}
	return out
}

// TestEngineBothSides feeds the engine SQLite executions, the real one and
// doctored ones: a snapshot read that shows a later commit, an UPDATE that
// reports the wrong number of rows, a final state that lost a write. The
// real execution must pass; each doctored one must be flagged as the
// statement (or state) it doctored.
func TestEngineBothSides(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx := context.Background()
	setup := []string{"CREATE TABLE t (a INT)", "INSERT INTO t VALUES (1), (2)"}
	schedule := func() []*model.Stmt {
		return []*model.Stmt{
			{Conn: 1, SQL: "BEGIN"},
			{Conn: 1, SQL: "SELECT a FROM t", Rows: rows("1", "2")},
			{Conn: 2, SQL: "UPDATE t SET a = 20 WHERE a = 2", Affected: 1},
			{Conn: 1, SQL: "SELECT a FROM t WHERE a > 0", Rows: rows("1", "2")},
			{Conn: 1, SQL: "SELECT COUNT(*) FROM t", Rows: rows("2")},
			{Conn: 1, SQL: "COMMIT"},
			{Conn: 2, SQL: "UPDATE t SET a = a + 1", Affected: 2},
			// Both rows tie on the sort key: either may come first.
			{Conn: 3, SQL: "SELECT a FROM t ORDER BY a - a LIMIT 1", Rows: rows("21")},
			// DISTINCT, sorted by one of its items: the rows tie again.
			{Conn: 3, SQL: "SELECT DISTINCT a, 0 AS k FROM t ORDER BY k LIMIT 1", Rows: []target.Row{{target.Str("2"), target.Str("0")}}},
		}
	}
	final := target.State{"t": rows("2", "21")}
	cases := []struct {
		name   string
		doctor func(s []*model.Stmt, f target.State)
		kind   string
		step   int
	}{
		{"real", func([]*model.Stmt, target.State) {}, "", 0},
		{"the other tied row", func(s []*model.Stmt, _ target.State) { s[7].Rows = rows("2") }, "", 0},
		{"a row LIMIT cannot return", func(s []*model.Stmt, _ target.State) { s[7].Rows = rows("5") }, "incorrect-result", 7},
		{"the other tied DISTINCT row", func(s []*model.Stmt, _ target.State) { s[8].Rows[0][0] = target.Str("21") }, "", 0},
		{"a DISTINCT row LIMIT cannot return", func(s []*model.Stmt, _ target.State) { s[8].Rows[0][0] = target.Str("5") }, "incorrect-result", 8},
		{"snapshot shows a later commit", func(s []*model.Stmt, _ target.State) { s[3].Rows = rows("1", "20") }, "incorrect-result", 3},
		{"aggregate over a later commit", func(s []*model.Stmt, _ target.State) { s[4].Rows = rows("3") }, "incorrect-result", 4},
		{"update affects too few rows", func(s []*model.Stmt, _ target.State) { s[6].Affected = 1 }, "incorrect-affected", 6},
		{"lost write", func(_ []*model.Stmt, f target.State) { f["t"] = rows("1", "21") }, "incorrect-final-state", -1},
	}
	sess, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sch := schedule()
			fin := target.State{"t": append([]target.Row(nil), final["t"]...)}
			c.doctor(sch, fin)
			eng := model.NewEngine(model.Lookup("sqlite", target.Serializable, nil), sqlast.SQLite, sess)
			defer func() { sess.(target.TempTables).DropTemporary(ctx, eng.Tables()) }()
			if err := eng.Setup(ctx, setup); err != nil {
				t.Fatal(err)
			}
			var dev *model.Deviation
			for i, st := range sch {
				st.Start, st.End, st.Step = i, i, i
				if d, err := eng.Step(ctx, st); err != nil {
					t.Fatal(err)
				} else if d != nil {
					dev = d
					break
				}
			}
			if dev == nil {
				dev = eng.Final(ctx, fin)
			}
			if h := eng.Halted(); h != "" && dev == nil {
				t.Fatalf("engine halted: %s", h)
			}
			switch {
			case c.kind == "" && dev != nil:
				t.Fatalf("real execution flagged: %s %s", dev.Kind, dev.Text)
			case c.kind == "":
			case dev == nil:
				t.Fatalf("doctored execution not flagged")
			case dev.Kind != c.kind || dev.Verdict != "bug":
				t.Fatalf("got %s %s, want %s bug", dev.Kind, dev.Verdict, c.kind)
			case c.step >= 0 && (dev.Stmt == nil || dev.Stmt.Step != c.step):
				t.Fatalf("flagged %+v, want step %d", dev.Stmt, c.step)
			}
		})
	}
}

// TestConflictAfterWait: MariaDB RR with innodb_snapshot_isolation=ON.
// T1 reads a row (its read view is taken), T2 updates the row, T1's UPDATE
// of the row waits for T2's lock, T2 commits. The documented outcome is
// error 1020 for T1's UPDATE. An UPDATE that succeeded after that wait is
// MDEV-39263's lost update and carries its rule; one that succeeded
// without waiting (submitted after T2's commit) breaks the documented rule
// itself.
func TestConflictAfterWait(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	ctx := context.Background()
	rules := model.Lookup("mariadb", target.RepeatableRead, map[string]string{"innodb_snapshot_isolation": "ON"})
	setup := []string{"CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)"}
	conflict := &target.Error{Class: target.ClassSerialization, Code: "1020", Message: "Record has changed since last read in table 't'", RolledBack: false}
	// In completion order; [start, end] are event positions.
	schedule := func(waited bool, err *target.Error) []*model.Stmt {
		upd := &model.Stmt{Conn: 1, Step: 5, SQL: "UPDATE t SET v = 12 WHERE k = 1", Start: 4, End: 6, Affected: 1, Err: err}
		commit := &model.Stmt{Conn: 2, Step: 4, SQL: "COMMIT", Start: 5, End: 5}
		if !waited {
			upd.Start, upd.End, commit.Start, commit.End = 5, 5, 4, 4
		}
		if err != nil {
			upd.Affected = 0
		}
		return []*model.Stmt{
			{Conn: 1, Step: 0, SQL: "BEGIN", Start: 0, End: 0},
			{Conn: 1, Step: 1, SQL: "SELECT v FROM t WHERE k = 1", Start: 1, End: 1, Rows: rows("10")},
			{Conn: 2, Step: 2, SQL: "BEGIN", Start: 2, End: 2},
			{Conn: 2, Step: 3, SQL: "UPDATE t SET v = 11 WHERE k = 1", Start: 3, End: 3, Affected: 1},
			commit, upd,
		}
	}
	for _, c := range []struct {
		name   string
		waited bool
		err    *target.Error
		rule   string // "" = no deviation
	}{
		{"error 1020 after the wait (documented)", true, conflict, ""},
		{"success after the wait", true, nil, "mdev-39263-snapshot-isolation-conflict-missed-after-wait"},
		{"success without a wait", false, nil, "statement-view"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sess, err := tg.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			eng := model.NewEngine(rules, sqlast.MySQL, sess)
			if err := eng.Setup(ctx, setup); err != nil {
				t.Fatal(err)
			}
			var dev *model.Deviation
			for _, st := range schedule(c.waited, c.err) {
				if dev, err = eng.Step(ctx, st); err != nil {
					t.Fatal(err)
				} else if dev != nil {
					break
				}
			}
			switch {
			case c.rule == "" && dev != nil:
				t.Fatalf("documented outcome flagged: %s [%s] %s", dev.Kind, dev.Rule.Name, dev.Text)
			case c.rule == "":
				if h := eng.Halted(); h != "" {
					t.Fatalf("engine halted: %s", h)
				}
			case dev == nil:
				t.Fatalf("not flagged (halted: %q)", eng.Halted())
			case dev.Kind != "missing-error" || dev.Verdict != "bug" || !strings.Contains(dev.Rule.Name, c.rule) || dev.Stmt.Step != 5:
				t.Fatalf("got %s %s [%s] at %+v, want missing-error bug [%s] at step 5", dev.Kind, dev.Verdict, dev.Rule.Name, dev.Stmt, c.rule)
			}
		})
	}
}

package model_test

import (
	"context"
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

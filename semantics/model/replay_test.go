package model_test

import (
	"context"
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
)

// replay feeds the engine a hand-written schedule in completion order and
// returns the first deviation (nil: none).
func replay(t *testing.T, eng *model.Engine, steps []step) *model.Deviation {
	t.Helper()
	for i, s := range steps {
		st := &model.Stmt{Conn: s.conn, Step: i, SQL: s.sql, Start: i, End: i, Rows: s.rows, Affected: s.affected, Err: s.err}
		if s.from > 0 {
			st.Start = s.from
		}
		dev, err := eng.Step(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if dev != nil {
			return dev
		}
	}
	return nil
}

// outcome is what a replay must give: no deviation and no halt (kind ""),
// or a deviation of that kind and verdict at step at, with the rule when
// one is named.
type outcome struct {
	kind, verdict, rule string
	at                  int
}

func (o outcome) check(t *testing.T, eng *model.Engine, dev *model.Deviation) {
	t.Helper()
	switch {
	case o.kind == "" && dev != nil:
		t.Fatalf("documented outcome flagged: %s %s [%s] %s", dev.Kind, dev.Verdict, dev.Rule.Name, dev.Text)
	case o.kind == "":
		if h := eng.Halted(); h != "" {
			t.Fatalf("engine halted: %s", h)
		}
	case dev == nil:
		t.Fatalf("not flagged (halted: %q)", eng.Halted())
	case dev.Kind != o.kind || string(dev.Verdict) != o.verdict || o.rule != "" && dev.Rule.Name != o.rule || dev.Stmt == nil || dev.Stmt.Step != o.at:
		t.Fatalf("got %s %s [%s] at %+v: %s; want %s %s [%s] at step %d", dev.Kind, dev.Verdict, dev.Rule.Name, dev.Stmt, dev.Text, o.kind, o.verdict, o.rule, o.at)
	}
}

// newEngine opens a session of tg and a model engine with rules r on it
// and runs setup; when the test ends it drops the engine's tables and
// closes the session.
func newEngine(t *testing.T, tg target.Target, r model.Rules, setup []string) *model.Engine {
	t.Helper()
	ctx := context.Background()
	sess, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eng := model.NewEngine(r, tg.Info().Dialect, sess)
	t.Cleanup(func() {
		sess.(target.TempTables).DropTemporary(ctx, eng.Tables())
		sess.Close()
	})
	if err := eng.Setup(ctx, setup); err != nil {
		t.Fatal(err)
	}
	return eng
}

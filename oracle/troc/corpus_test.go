package troc_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/troc"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// judgedToEnd runs the corpus's case files (bugs/) on a real server of
// dbms at each of levels (nil: each case's own) and requires Troc to judge
// each run to its end with no finding: the documented behaviours the
// model follows.
func judgedToEnd(t *testing.T, dbms string, levels []target.Level, files ...string) {
	t.Helper()
	tg := connecttest.Target(t, dbms)
	o := newOracle(t, tg)
	if levels == nil {
		levels = []target.Level{""}
	}
	for _, f := range files {
		c, err := testcase.ParseFile(filepath.Join("..", "..", "bugs", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, level := range levels {
			t.Run(strings.TrimSuffix(f+"/"+string(level), "/"), func(t *testing.T) {
				res, j := runAndJudge(t, tg, o, c, executor.Options{Isolation: level})
				if j.Undecided != "" || len(j.Findings) != 0 {
					var b strings.Builder
					res.WriteSchedule(&b)
					t.Errorf("undecided %q, findings %v; want judged to the end with none\n%s", j.Undecided, j.Findings, b.String())
				}
			})
		}
	}
}

// newOracle is a Troc oracle whose model follows tg's server settings; its
// model's sessions close when the test ends.
func newOracle(t *testing.T, tg target.Target) *troc.Oracle {
	t.Helper()
	set, err := semantics.ServerSettings(context.Background(), tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &conform.Checker{Settings: set}
	t.Cleanup(func() { m.Close() })
	return &troc.Oracle{Model: m}
}

// runAndJudge runs c once on tg with opt and has o judge the run.
func runAndJudge(t *testing.T, tg target.Target, o *troc.Oracle, c *testcase.Case, opt executor.Options) (*executor.Result, *oracle.Judgement) {
	t.Helper()
	ctx := context.Background()
	res, err := executor.Run(ctx, tg, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	j, err := o.Check(ctx, tg, c, res, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, j
}

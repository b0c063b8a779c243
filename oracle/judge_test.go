package oracle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/sqlite"
	"github.com/txlab/txlab/testcase"
)

// slowJudge judges for longer than any case's bound: until its context
// ends, or (careless) for a fixed time whatever the context says.
type slowJudge struct{ careless time.Duration }

func (slowJudge) Name() string      { return "slow" }
func (slowJudge) JudgesPlain() bool { return true }

func (j slowJudge) Check(ctx context.Context, _ target.Target, _ *testcase.Case, _ *executor.Result, _ executor.Options) (*oracle.Judgement, error) {
	if j.careless > 0 {
		time.Sleep(j.careless)
		return &oracle.Judgement{}, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestJudgingCountsAgainstTheBound: an oracle still judging when the
// case's bound (HangTimeout from the case's start) passes ends the case's
// judging as a judge timeout — no finding, no error, the oracles after it
// not run — whether or not the oracle watches its context.
func TestJudgingCountsAgainstTheBound(t *testing.T) {
	ctx := context.Background()
	tg, err := sqlite.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, err := testcase.Parse("t.txn", strings.NewReader("CREATE TABLE t (id INT PRIMARY KEY);\n1> INSERT INTO t VALUES (1);\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []slowJudge{{}, {careless: 3 * time.Second}} {
		done := make(chan struct{})
		var out *oracle.Outcome
		go func() {
			defer close(done)
			out, err = oracle.CheckCase(ctx, tg, c, []oracle.CaseOracle{j, slowJudge{}}, executor.Options{HangTimeout: time.Second}, false)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("judging (careless %v) did not end with the case's bound", j.careless)
		}
		if err != nil {
			t.Fatalf("careless %v: %v", j.careless, err)
		}
		if out.JudgeTimeout != "slow" || len(out.Judged) != 0 || len(out.Findings) != 0 {
			t.Errorf("careless %v: judge timeout %q, judged %v, findings %v; want a judge timeout of slow and nothing judged", j.careless, out.JudgeTimeout, out.Judged, out.Findings)
		}
		if out.Result == nil || out.Result.Hang || len(out.Result.Events) != 1 {
			t.Errorf("careless %v: the plain execution is not kept: %+v", j.careless, out.Result)
		}
	}
}

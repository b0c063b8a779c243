package wss_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// TestRunMemo checks each case of 30 generated groups twice on the same
// plain run, with and without the memo of serial runs: the outcomes must
// be the same, and the runs saved must be exactly the memo's hits (the
// cases of a group often derive the same serial case).
func TestRunMemo(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx := context.Background()
	exec := executor.Options{Isolation: target.Serializable}
	memo := &wss.RunMemo{}
	runsWith, runsWithout := 0, 0
	for seed := uint64(1); seed <= 30; seed++ {
		for _, c := range wss.Group(seed, wss.GroupConfig{Dialect: tg.Info().Dialect, Orders: 3, MaxTxns: 3, MaxStmts: 3}) {
			plain, err := executor.Run(ctx, tg, c, exec)
			if err != nil {
				continue // a setup the generator got wrong: not this test's business
			}
			with, err := wss.CheckExecution(ctx, tg, c, plain, wss.Options{Exec: exec, Memo: memo})
			if err != nil {
				t.Fatal(err)
			}
			without, err := wss.CheckExecution(ctx, tg, c, plain, wss.Options{Exec: exec})
			if err != nil {
				t.Fatal(err)
			}
			runsWith += with.Runs
			runsWithout += without.Runs
			if a, b := outcomeText(with), outcomeText(without); a != b {
				t.Errorf("seed %d: with the memo %s, without %s", seed, a, b)
			}
		}
	}
	t.Logf("%d serial runs without the memo, %d with it (%d hits)", runsWithout, runsWith, memo.Hits)
	if memo.Hits == 0 {
		t.Error("no case shared a serial run with another of its group")
	}
	if runsWithout-runsWith != memo.Hits {
		t.Errorf("%d runs saved, but %d hits", runsWithout-runsWith, memo.Hits)
	}
}

func outcomeText(o *wss.Outcome) string {
	s := fmt.Sprintf("skipped %q", o.Skipped)
	for _, r := range []*wss.Run{o.TxSerial, o.StmtSerial} {
		if r != nil {
			s += fmt.Sprintf("; %s %v final %v", r.Name, r.Order, r.Result.Final)
		}
	}
	for _, f := range o.Findings {
		s += fmt.Sprintf("; %s %s %s", f.Kind, f.Verdict, f.Rule)
	}
	return s
}

package model

import (
	"context"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestCheckerRenewsBrokenSession: when the evaluator session's connection
// broke (a judging cut off mid-statement closes it), the next case gets a
// new session instead of an infrastructure error that stops a campaign.
func TestCheckerRenewsBrokenSession(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	ctx := context.Background()
	cs, err := testcase.ParseString("c", "CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n1> BEGIN;\n1> SELECT a FROM t;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	c := &Checker{}
	defer c.Close()
	check := func() {
		t.Helper()
		res, err := executor.Run(ctx, tg, cs, executor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		conf, err := c.Check(ctx, tg, cs, res)
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		if !conf.Conforms() {
			t.Fatalf("not conforming: %+v, halted %q", conf.Deviation, conf.Halted)
		}
	}
	check()
	// The server ends the evaluator's connection under the checker.
	killer, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close()
	if _, err := killer.Exec(ctx, "KILL "+c.sessions[tg].s.ID()); err != nil {
		t.Fatal(err)
	}
	check()
	if c.sessions[tg].broken {
		t.Error("the session is still marked broken after a Check that renewed it")
	}
}

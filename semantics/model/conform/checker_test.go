package conform

import (
	"context"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/semantics/model"
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
	if _, err := killer.Exec(ctx, "KILL "+c.scratch.s.ID()); err != nil {
		t.Fatal(err)
	}
	check()
	if c.scratch.broken {
		t.Error("the session is still marked broken after a Check that renewed it")
	}
}

// TestHaltReason: a case the model stops on says why in a short form that
// names the cause and the statement's kind, the same for every case
// stopped the same way, so that a campaign can count them; a case judged
// to the end has none.
func TestHaltReason(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx := context.Background()
	c := &Checker{}
	defer c.Close()
	for _, tc := range []struct{ name, txn, want string }{
		{"to the end", "CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n1> BEGIN;\n1> SELECT a FROM t;\n1> COMMIT;\n", ""},
		{"savepoint", "CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n1> BEGIN;\n1> SAVEPOINT s1;\n1> SELECT a FROM t;\n1> ROLLBACK TO s1;\n1> COMMIT;\n", ""},
		{"not understood", "CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n1> BEGIN;\n1> SELECT a FROM t WHERE a IN (SELECT a FROM t EXCEPT SELECT 2);\n1> COMMIT;\n", "not understood: SELECT near EXCEPT"},
		// A cascade into a table another key references (chained actions).
		{"a feature", "CREATE TABLE p (a INT PRIMARY KEY);\nCREATE TABLE c (a INT PRIMARY KEY REFERENCES p (a) ON DELETE CASCADE);\nCREATE TABLE g (a INT REFERENCES c (a));\nINSERT INTO p VALUES (1);\nINSERT INTO c VALUES (1);\n1> BEGIN;\n1> DELETE FROM p;\n1> COMMIT;\n", "not modelled: on-delete-cascade"},
		{"setup", "CREATE TABLE t (a INT);\nCREATE VIEW v AS SELECT a FROM t;\n1> BEGIN;\n1> SELECT a FROM t;\n1> COMMIT;\n", "setup not understood: CREATE near VIEW"},
	} {
		cs, err := testcase.ParseString(tc.name, tc.txn)
		if err != nil {
			t.Fatal(err)
		}
		res, err := executor.Run(ctx, tg, cs, executor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		conf, err := c.Check(ctx, tg, cs, res)
		if err != nil {
			t.Fatalf("%s: Check: %v", tc.name, err)
		}
		if conf.Reason != tc.want || (tc.want == "") != conf.Conforms() {
			t.Errorf("%s: reason %q (halted %q, deviation %v), want %q", tc.name, conf.Reason, conf.Halted, conf.Deviation, tc.want)
		}
	}
}

// TestReasonTruncated: the model's reason for a case whose results were
// cut is the executor's, which every oracle gives for such a case.
func TestReasonTruncated(t *testing.T) {
	if model.ReasonTruncated != executor.TruncatedReason {
		t.Errorf("model.ReasonTruncated = %q, executor.TruncatedReason = %q", model.ReasonTruncated, executor.TruncatedReason)
	}
}

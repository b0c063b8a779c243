package executor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// intruded is a target on which another session creates a table in txlab's
// schema while a case runs: just before txlab records the tables the case
// created, the moment a table found there was once taken for txlab's.
type intruded struct {
	target.Target
	table string
}

func (t *intruded) Adopt(ctx context.Context, created []string) error {
	s, err := t.Target.Open(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+t.table+" (id INT)"); err != nil {
		s.Close()
		return err
	}
	s.Close()
	return t.Target.Adopt(ctx, created)
}

// TestOwnOnlyWhatItCreated: a table someone else creates in txlab's schema
// during a run survives it and the next one, which refuses the schema
// instead of dropping the table; a table the case's steps create is
// txlab's and goes with the next reset.
func TestOwnOnlyWhatItCreated(t *testing.T) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			tg := connecttest.Target(t, dbms)
			ctx := context.Background()
			c, err := testcase.ParseString("own.txn", ("CREATE TABLE t (id INT PRIMARY KEY);\n1> CREATE TABLE made_by_step (id INT);\n1> INSERT INTO t VALUES (1);\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := executor.Run(ctx, &intruded{Target: tg, table: "theirs"}, c, executor.Options{}); err != nil {
				t.Fatal(err)
			}
			owned, ok := target.As[target.Emptier](tg)
			if !ok {
				t.Fatal("no Emptier")
			}
			tables, terr := owned.Tables(ctx)
			if terr != nil {
				t.Fatal(terr)
			}
			if strings.Join(tables, ",") != "made_by_step,t" {
				t.Errorf("txlab's tables after the run = %v, want made_by_step and t", tables)
			}
			_, rerr := executor.Run(ctx, tg, c, executor.Options{})
			if rerr == nil || !strings.Contains(rerr.Error(), "theirs") {
				t.Errorf("the next run with a stranger's table in the schema: %v, want refused naming it", rerr)
			}
			s, oerr := tg.Open(ctx)
			if oerr != nil {
				t.Fatal(oerr)
			}
			defer s.Close()
			if _, err := s.Exec(ctx, "SELECT * FROM theirs"); err != nil {
				t.Errorf("the stranger's table after two runs: %v", err)
			}
			if _, err := s.Exec(ctx, "DROP TABLE theirs"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

package executor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestForeignKeySetups runs cases with foreign keys among their tables
// (cascades, deferred keys) several times in a row on a bench, as a
// campaign's worker does: every run works, whether the tables are emptied
// in place (PostgreSQL truncates them in one statement) or, where the
// DBMS refuses to truncate a referenced table (InnoDB, SQLite), dropped
// and created again; a reused run agrees with a fresh one.
func TestForeignKeySetups(t *testing.T) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			tg := executor.NewBench(connecttest.Target(t, dbms))
			ctx := context.Background()
			opt := executor.Options{HangTimeout: 5 * time.Second}
			feats := []string{"foreign-key", "on-delete-cascade", "deferred-constraint"}
			var cases []*testcase.Case
			for seed := uint64(1); len(cases) < 8 && seed < 200; seed++ {
				c := gen.Case(seed, gen.Config{Dialect: tg.Info().Dialect, Features: feats})
				if strings.Contains(strings.Join(c.Setup, " "), "FOREIGN KEY") {
					cases = append(cases, c)
				}
			}
			if len(cases) < 8 {
				t.Fatalf("only %d cases with a foreign key", len(cases))
			}
			reused := 0
			for _, c := range cases {
				var first *executor.Result
				for i := range 3 {
					res, err := executor.Run(ctx, tg, c, opt)
					if err != nil {
						t.Fatalf("%s run %d: %v\n%s", c.Seed, i+1, err, c)
					}
					if res.Reused && first != nil {
						reused++
						if differsBeyondRace(first, res) {
							t.Errorf("%s: the run on reused tables differs:\nfresh:\n%s\nreused:\n%s", c.Seed, compact(first), compact(res))
						}
					}
					if first == nil {
						first = res
					}
				}
			}
			t.Logf("%s: %d of %d runs on tables emptied in place", dbms, reused, 2*len(cases))
			if dbms == "postgres" && reused == 0 {
				t.Error("PostgreSQL never emptied tables with foreign keys in place")
			}
		})
	}
}

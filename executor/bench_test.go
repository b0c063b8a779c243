package executor_test

import (
	"context"
	"errors"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// BenchmarkBlocking replays the same statements twice per DBMS: ordered so
// that one statement blocks (write-busy) and ordered so that nothing blocks
// (write-nobusy). The difference per op is what one detected block costs;
// published tools pay a fixed 2 s wait per statement for it.
func BenchmarkBlocking(b *testing.B) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		b.Run(dbms, func(b *testing.B) {
			tg := connecttest.Target(b, dbms)
			for _, name := range []string{"write-nobusy", "write-busy"} {
				c := loadCase(b, name)
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						res, err := executor.Run(context.Background(), tg, c, executor.Options{})
						if err != nil {
							b.Fatal(err)
						}
						if blocked := countBlocked(res); (name == "write-busy") != (blocked == 1) {
							b.Fatalf("%s: %d blocked statements", name, blocked)
						}
					}
				})
			}
		})
	}
}

func countBlocked(res *executor.Result) int {
	n := 0
	for _, ev := range res.Events {
		if ev.Status == executor.StatusBlocked {
			n++
		}
	}
	return n
}

// BenchmarkSetup runs 20 generated cases on MariaDB and PostgreSQL, each
// case twice in a row as an oracle's re-run does: "fresh" drops and
// re-creates the tables for the second run too, "reused" lets the executor
// empty them in place. ns/case compares the two; on PostgreSQL, which
// cannot empty tables in place here, both are the fresh path.
//
//	go test -run '^$' -bench BenchmarkSetup -benchtime 3x ./executor/
func BenchmarkSetup(b *testing.B) {
	for _, dbms := range []string{"mariadb", "postgres"} {
		b.Run(dbms, func(b *testing.B) {
			tg := executor.NewBench(connecttest.Target(b, dbms))
			dialect := sqlast.MySQL
			if dbms == "postgres" {
				dialect = sqlast.Postgres
			}
			var cases []*testcase.Case
			for seed := uint64(1); seed <= 20; seed++ {
				cases = append(cases, gen.Case(seed, gen.Config{Dialect: dialect}))
			}
			for _, mode := range []string{"fresh", "reused"} {
				b.Run(mode, func(b *testing.B) {
					n := 0
					for b.Loop() {
						for _, c := range cases {
							for range 2 {
								if mode == "fresh" {
									executor.ForgetSetup(tg)
								}
								_, err := executor.Run(context.Background(), tg, c, executor.Options{})
								var setupErr *executor.SetupError
								if err != nil && !errors.As(err, &setupErr) {
									b.Fatal(err)
								}
							}
							n++
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/case")
				})
			}
		})
	}
}

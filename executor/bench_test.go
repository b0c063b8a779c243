package executor_test

import (
	"context"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target/connect/connecttest"
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

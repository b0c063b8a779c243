package instrument

import (
	"context"
	"testing"
	"time"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// BenchmarkStress measures the stress mode's sustained rate on real
// servers: 4 sessions of generated, instrumented transactions at read
// committed (serializable on SQLite), periodic full reads included. The
// txns/s metric counts every transaction (committed or failed) over the
// span from the first start to the last end, so schema setup is left out.
//
//	go test -run '^$' -bench BenchmarkStress -benchtime 10s ./oracle/isorel/instrument
func BenchmarkStress(b *testing.B) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		b.Run(dbms, func(b *testing.B) {
			tg := connecttest.Target(b, dbms)
			level := tg.DefaultLevel()
			if dbms != "sqlite" {
				level = "read-committed"
			}
			var txns, committed int
			var span time.Duration
			for b.Loop() {
				h, err := Stress(context.Background(), tg, StressConfig{Sessions: 4, Duration: 5 * time.Second, Seed: 11, Isolation: level})
				if err != nil {
					b.Fatal(err)
				}
				var first, last int64
				for _, tx := range h.Txns {
					if tx.Init {
						continue
					}
					txns++
					if tx.Status == history.OK {
						committed++
					}
					if first == 0 || tx.Start < first {
						first = tx.Start
					}
					last = max(last, tx.End)
				}
				span += time.Duration(last - first)
			}
			b.ReportMetric(float64(txns)/span.Seconds(), "txns/s")
			b.ReportMetric(float64(committed)/span.Seconds(), "commits/s")
		})
	}
}

package workload

import (
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/oracle/mt"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// BenchmarkRun runs b.N MTs (8 sessions, 10 keys, 20% read-only) per DBMS
// and level, then checks the history; it reports recorded and committed MTs
// per second and the check's time. Run with -benchtime=100000x for the
// acceptance figure (100k MTs on PostgreSQL serializable).
func BenchmarkRun(b *testing.B) {
	cases := []struct {
		name  string
		open  func(testing.TB) target.Target
		level target.Level
		lwt   bool
		model mt.Model
	}{
		{"sqlite/serializable", func(tb testing.TB) target.Target { return connecttest.Target(tb, "sqlite") }, target.Serializable, false, mt.Serializable},
		{"postgres/serializable", func(tb testing.TB) target.Target { return server(tb, localdb.Postgres) }, target.Serializable, false, mt.Serializable},
		{"postgres/read-committed", func(tb testing.TB) target.Target { return server(tb, localdb.Postgres) }, target.ReadCommitted, false, mt.Serializable},
		{"postgres/lwt", func(tb testing.TB) target.Target { return server(tb, localdb.Postgres) }, target.ReadCommitted, true, mt.Linearizable},
		{"mariadb/repeatable-read", func(tb testing.TB) target.Target { return server(tb, localdb.MariaDB) }, target.RepeatableRead, false, mt.Snapshot},
		{"mariadb/serializable", func(tb testing.TB) target.Target { return server(tb, localdb.MariaDB) }, target.Serializable, false, mt.Serializable},
		{"mariadb/lwt", func(tb testing.TB) target.Target { return server(tb, localdb.MariaDB) }, target.RepeatableRead, true, mt.Linearizable},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tg := c.open(b)
			cfg := Config{Sessions: 8, Txns: b.N, Keys: 10, ReadOnlyRatio: 0.2, Level: c.level, LWT: c.lwt, Seed: 1}
			b.ResetTimer()
			h, st, err := Run(b.Context(), tg, cfg)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			res, err := mt.Check(h, c.model)
			if err != nil {
				b.Fatal(err)
			}
			checked := time.Since(start)
			b.StopTimer()
			b.ReportMetric(st.TxnsPerSec, "MTs/s")
			b.ReportMetric(float64(st.Committed)/st.Elapsed.Seconds(), "commits/s")
			b.ReportMetric(float64(checked.Microseconds())/1000, "check-ms")
			if b.N >= 1000 {
				b.Logf("%d MTs: %d ok, %d fail; %s valid=%v", b.N, st.Committed, st.Failed, c.model, res.Valid)
			}
		})
	}
}

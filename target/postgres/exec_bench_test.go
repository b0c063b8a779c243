package postgres

import (
	"context"
	"testing"
)

// BenchmarkExec runs one case statement at a time through Session.Exec,
// as the executor does: a trivial query, a point read, a 100-row read and
// a point update. It is how the cost of sending case statements through
// the extended protocol (Parse, Bind, Describe, Execute and Sync in one
// round trip, where the simple protocol sends one Query) was measured.
func BenchmarkExec(b *testing.B) {
	ctx := context.Background()
	tg, err := Open(ctx, shared.Server(b).DSN(), "", "txlab_bench_exec")
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Reset(ctx); err != nil {
		b.Fatal(err)
	}
	s, err := tg.Open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"CREATE TABLE e (id INT PRIMARY KEY, v INT, s TEXT)",
		"INSERT INTO e SELECT g, g, 'row ' || g FROM generate_series(1, 100) g",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	if err := tg.Adopt(ctx, []string{"e"}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, sql string }{
		{"select-1", "SELECT 1"},
		{"point-read", "SELECT v, s FROM e WHERE id = 7"},
		{"read-100-rows", "SELECT * FROM e"},
		{"point-update", "UPDATE e SET v = v + 1 WHERE id = 7"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Exec(ctx, bc.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

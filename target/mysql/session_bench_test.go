package mysql

import (
	"context"
	"testing"
)

// BenchmarkSessionOpen opens a session (a new server connection: the
// adapter never reuses one) and closes it. Since connections pin utf8mb4,
// each runs SET NAMES once it is up: one round trip more than the
// handshake alone.
func BenchmarkSessionOpen(b *testing.B) {
	ctx := context.Background()
	tg, err := OpenURL(ctx, shared.Server(b).DSN(), "txlab_bench_open")
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	for b.Loop() {
		s, err := tg.Open(ctx)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

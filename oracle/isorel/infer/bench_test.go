package infer

import (
	"fmt"
	"testing"
)

// BenchmarkInfer compares the trie-based inference with the paper's
// pairwise loop on random interleaved histories. The pairwise case is
// quadratic: run it with -benchtime 1x at 100k.
//
//	go test -run ^$ -bench BenchmarkInfer -benchtime 1x ./oracle/isorel/infer
func BenchmarkInfer(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		h := genHistory(42, genOptions{Stmts: n, Rows: 200, MaxRows: 200, Sessions: 4, Stale: 0.3, Fail: 0.05, FullRead: 200})
		for _, impl := range []struct {
			name string
			f    func() (*Deps, error)
		}{
			{"near-linear", func() (*Deps, error) { return Infer(h) }},
			{"pairwise", func() (*Deps, error) { return InferPairwise(h) }},
		} {
			b.Run(fmt.Sprintf("%s/%dk", impl.name, n/1000), func(b *testing.B) {
				var edges int
				for b.Loop() {
					d, err := impl.f()
					if err != nil {
						b.Fatal(err)
					}
					edges = len(d.Edges)
				}
				b.ReportMetric(float64(edges), "edges")
			})
		}
	}
}

// BenchmarkCheck is the whole oracle (inference, cycles, verdicts) on a
// 100k-statement history.
func BenchmarkCheck(b *testing.B) {
	h := genHistory(42, genOptions{Stmts: 100_000, Rows: 200, MaxRows: 200, Sessions: 4, Stale: 0.3, Fail: 0.05, FullRead: 200})
	for b.Loop() {
		if _, err := Check(h, Options{DBMS: "postgres"}); err != nil {
			b.Fatal(err)
		}
	}
}

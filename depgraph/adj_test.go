package depgraph

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestBuildAdjFunc: arcs emitted twice give the Adj BuildAdj gives for the
// same list, node by node in the same order.
func TestBuildAdjFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 100} {
		var arcs []Arc
		for range n * 3 {
			arcs = append(arcs, Arc{From: int32(r.IntN(n)), To: int32(r.IntN(n))})
		}
		want := BuildAdj(n, arcs)
		got := BuildAdjFunc(n, func(add func(from, to int32)) {
			for _, a := range arcs {
				add(a.From, a.To)
			}
		})
		if !reflect.DeepEqual(got.Off, want.Off) || !reflect.DeepEqual(got.To, want.To) || got.N != want.N {
			t.Errorf("n=%d: %+v, want %+v", n, got, want)
		}
	}
}

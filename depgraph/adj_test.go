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

// TestTarjanAgreesWithReference: tarjan (one array a node, the low link in
// the frame) finds the components of the textbook three-array version in
// the same order, with the same members in the same order and the same
// numbering, on random graphs with self-loops and repeated arcs: the
// checkers' reports depend on that order.
func TestTarjanAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 3000 {
		n := 1 + r.IntN(30)
		if iter%100 == 0 {
			n = 1000 + r.IntN(1000) // deep searches, large components
		}
		arcs := make([]Arc, r.IntN(3*n))
		for i := range arcs {
			arcs[i] = Arc{int32(r.IntN(n)), int32(r.IntN(n))}
		}
		a := BuildAdj(n, arcs)
		sccs, comp := a.CyclicSCCs()
		wantSCCs, wantComp := tarjanRef(n, a.Off, a.To)
		if !reflect.DeepEqual(sccs, wantSCCs) || !reflect.DeepEqual(comp, wantComp) {
			t.Fatalf("arcs %v:\ngot  %v %v\nwant %v %v", arcs, sccs, comp, wantSCCs, wantComp)
		}
	}
}

// tarjanRef is tarjan as it was before it kept one array a node.
func tarjanRef(n int, off, to []int32) (sccs [][]int32, comp []int32) {
	index := make([]int32, n) // 0 = unvisited, else DFS number + 1
	low := make([]int32, n)
	comp = make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	var stack []int32
	type frame struct{ v, i int32 }
	var call []frame
	next := int32(1)
	ncomp := int32(0)
	for root := 0; root < n; root++ {
		if index[root] != 0 {
			continue
		}
		call = append(call, frame{int32(root), off[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.i < off[v+1] {
				w := to[f.i]
				f.i++
				if index[w] == 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					call = append(call, frame{w, off[w]})
				} else if comp[w] < 0 && index[w] < low[v] {
					low[v] = index[w] // w is on the stack
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] != index[v] {
				continue
			}
			// v is a root: pop its component.
			i := len(stack) - 1
			for stack[i] != v {
				i--
			}
			members := stack[i:]
			for _, w := range members {
				comp[w] = ncomp
			}
			if len(members) > 1 || selfLoopRef(to[off[v]:off[v+1]], v) {
				sccs = append(sccs, append([]int32(nil), members...))
			}
			stack = stack[:i]
			ncomp++
		}
	}
	return sccs, comp
}

func selfLoopRef(out []int32, v int32) bool {
	for _, w := range out {
		if w == v {
			return true
		}
	}
	return false
}

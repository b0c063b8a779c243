package mt

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
)

// TestCycleTestAgreesWithLabeledGraph: the unlabeled graph Check tests for
// cycles finds exactly the components of the labeled graph the witnesses
// are extracted from, in the same order with the same members, so the
// reported anomalies do not depend on the fast path.
func TestCycleTestAgreesWithLabeledGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cyclic := 0
	check := func(h *history.History) {
		t.Helper()
		ix, err := index(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range labeledGraphs(ix) {
			if sameComponents(t, c.m, h, ix.cycleTest(c.m), c.want) {
				cyclic++
			}
		}
	}
	for range 2000 {
		check(randomHistory(r, 2+r.IntN(30), 1+r.IntN(4)))
	}
	h := synth(3000, 20, 8, 2)
	check(h)
	injectLostUpdate(h)
	check(h)
	if cyclic < 500 {
		t.Fatalf("only %d cyclic cases: the random histories do not exercise witnesses", cyclic)
	}
}

// modelGraph is a model's labeled graph, whose cyclic components the
// cycle test's unlabeled graph for the model must have.
type modelGraph struct {
	m    Model
	want *depgraph.Graph
}

func labeledGraphs(ix *indexed) []modelGraph {
	g := ix.build()
	return []modelGraph{{Serializable, g}, {Snapshot, ix.compose(g)}, {StrictSerializable, ix.withRealTime(g)}}
}

// sameComponents fails the test unless the unlabeled graph got of history
// h has the cyclic components of the labeled graph want, in the same order
// with the same members, and reports whether there are any.
func sameComponents(t *testing.T, m Model, h *history.History, got *depgraph.Adj, want *depgraph.Graph) bool {
	t.Helper()
	wantSCCs, wantComp := want.CyclicSCCs()
	gotSCCs, gotComp := got.CyclicSCCs()
	if !reflect.DeepEqual(gotSCCs, wantSCCs) || !reflect.DeepEqual(gotComp, wantComp) {
		t.Fatalf("%s: history %+v:\nunlabeled %v\nlabeled   %v", m, h.Txns, gotSCCs, wantSCCs)
	}
	return len(wantSCCs) > 0
}

// TestReadIndexAgreesWithScan: the per-read writer computed once through
// the hash table is the write a linear scan of the history finds.
func TestReadIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		h := randomHistory(r, 1+r.IntN(40), 1+r.IntN(5))
		// Some reads of values nobody wrote: the index must say so.
		for i := 1; i < len(h.Txns); i++ {
			if r.IntN(10) == 0 {
				h.Txns[i].Ops[0].Value = -1 - int64(i)
			}
		}
		ix, err := index(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		for i := range h.Txns {
			for j, o := range h.Txns[i].Ops {
				if o.Kind != history.R {
					continue
				}
				got, ok := ix.writer(int32(i), j)
				want := wref{txn: -1}
				for wi, wt := range h.Txns {
					for wj, p := range wt.Ops {
						if p.Kind == history.W && p.Key == o.Key && p.Value == o.Value {
							want = wref{txn: int32(wi), op: int32(wj)}
						}
					}
				}
				if ok != (want.txn >= 0) || ok && (got.txn != want.txn || got.op != want.op) {
					t.Fatalf("T%d op %d %v: index says %+v (found %v), scan says %+v", i, j, o, got, ok, want)
				}
			}
		}
	}
}

// TestCycleTestParallelAgrees: the cycle test's graph built per node on
// several cores (random histories cut into up to four chunks, with shared
// sessions and failed and unknown transactions) is, arc for arc, the one
// built serially from the arcs in order, and its components are those of
// the labeled graph.
func TestCycleTestParallelAgrees(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(m int) { parallelMin = m }(parallelMin)
	parallelMin = 8
	r := rand.New(rand.NewPCG(9, 10))
	fast, cyclic := 0, 0
	for range 3000 {
		h := staleReads(r, 8+r.IntN(40), 1+r.IntN(6))
		for i := 1; i < len(h.Txns); i++ {
			h.Txns[i].Session = r.IntN(5)
			switch r.IntN(8) {
			case 0:
				h.Txns[i].Status = history.Fail
			case 1:
				h.Txns[i].Status = history.Unknown
			}
		}
		ix, err := index(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range labeledGraphs(ix) {
			got, serial := ix.cycleTest(c.m), ix.cycleTestSerial(c.m)
			if !reflect.DeepEqual(got, serial) {
				t.Fatalf("%s: history %+v:\nparallel %+v\nserial   %+v", c.m, h.Txns, got, serial)
			}
			if sameComponents(t, c.m, h, got, c.want) && !ix.arcs.diverges {
				cyclic++
			}
		}
		if !ix.arcs.diverges {
			fast++
		}
	}
	if fast < 2000 || cyclic < 2000 {
		t.Fatalf("%d histories without a DIVERGENCE, %d cyclic graphs among them: too few to exercise the per-node build", fast, cyclic)
	}
}

// staleReads is randomHistory without a DIVERGENCE, most of the time: a
// transaction that writes a key read its latest version, and a read of an
// older one is read-only (a stale read, making rw cycles); one history in
// ten is randomHistory.
func staleReads(r *rand.Rand, n, keys int) *history.History {
	if r.IntN(10) == 0 {
		return randomHistory(r, n, keys)
	}
	return genHistory(r, n, keys, func(vs []int64) (int64, bool) {
		back := 0
		if r.IntN(4) == 0 {
			back = r.IntN(min(len(vs), 3))
		}
		return vs[len(vs)-1-back], back == 0
	})
}

// TestEndsBefore: the galloping search finds, from any hint, what a
// binary search over all the ends does.
func TestEndsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		ends := make([]timedEnd, r.IntN(40))
		for i := range ends {
			ends[i] = newTimedEnd(int64(r.IntN(30))-5+int64(r.IntN(2))<<40, int32(i))
		}
		slices.SortFunc(ends, func(a, b timedEnd) int { return cmp.Compare(a.end(), b.end()) })
		for range 20 {
			s := int64(r.IntN(40)) - 10 + int64(r.IntN(2))<<40
			want, _ := slices.BinarySearchFunc(ends, s, func(e timedEnd, s int64) int {
				if e.end() < s {
					return -1
				}
				return 1
			})
			hint := r.IntN(len(ends) + 1)
			if got := endsBefore(ends, s, hint); got != want {
				t.Fatalf("ends %v, start %d, hint %d: %d, want %d", ends, s, hint, got, want)
			}
		}
	}
}

// TestFarApartSessions: session numbers far apart (their difference
// overflows an int) are linked through a map, not a slice spanning them.
func TestFarApartSessions(t *testing.T) {
	h := synth(1000, 20, 4, 8)
	h.Txns[1].Session, h.Txns[2].Session = math.MinInt, math.MaxInt
	for _, m := range []Model{Serializable, Snapshot, StrictSerializable} {
		if res, err := Check(h, m); err != nil || !res.Valid {
			t.Errorf("%s: valid %v, err %v", m, res != nil && res.Valid, err)
		}
	}
}

// TestFinalWrites: the flags of a large transaction (bitmap or map) are
// isFinal's nested loop, on transactions with repeated, dense, sparse and
// negative keys, and reads.
func TestFinalWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 500 {
		ops := make([]history.Op, 1+r.IntN(60))
		spread := []int64{4, 100, 1 << 40}[r.IntN(3)]
		for j := range ops {
			ops[j] = history.Op{Kind: history.W, Key: r.Int64N(spread) - spread/2}
			if r.IntN(4) == 0 {
				ops[j].Kind = history.R
			}
		}
		final := finalWrites(ops)
		for j, o := range ops {
			if want := o.Kind == history.W && isFinal(ops, j, nil); final[j] != want {
				t.Fatalf("ops %v: op %d final %v, want %v", ops, j, final[j], want)
			}
		}
	}
}

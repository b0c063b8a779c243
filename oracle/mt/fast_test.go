package mt

import (
	"math/rand/v2"
	"reflect"
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
		ix, err := index(h)
		if err != nil {
			t.Fatal(err)
		}
		g := ix.build()
		for _, c := range []struct {
			m    Model
			want *depgraph.Graph
		}{{Serializable, g}, {Snapshot, ix.compose(g)}, {StrictSerializable, ix.withRealTime(g)}} {
			wantSCCs, wantComp := c.want.CyclicSCCs()
			gotSCCs, gotComp := ix.cycleTest(c.m).CyclicSCCs()
			if !reflect.DeepEqual(gotSCCs, wantSCCs) || !reflect.DeepEqual(gotComp, wantComp) {
				t.Fatalf("%s: history %+v:\nunlabeled %v\nlabeled   %v", c.m, h.Txns, gotSCCs, wantSCCs)
			}
			if len(wantSCCs) > 0 {
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
		ix, err := index(h)
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

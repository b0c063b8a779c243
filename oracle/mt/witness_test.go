package mt

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/txlab/txlab/history"
)

// checkFullGraphs is check as it was before witnessGraphs: the witnesses
// are searched in the whole labeled graph, build's (composed for SI, with
// the time chain for SSER).
func checkFullGraphs(h *chist, model Model) (*Result, error) {
	ix, err := index(h)
	if err != nil {
		return nil, err
	}
	res := &Result{Model: model, Txns: len(h.Txns)}
	if ix.readChecks(res); len(res.Anomalies) > 0 {
		return res, nil
	}
	if model == Snapshot {
		if ix.divergence(res); len(res.Anomalies) > 0 {
			return res, nil
		}
	}
	if sccs, comp := ix.cycleTest(model).CyclicSCCs(); len(sccs) > 0 {
		g := ix.build()
		switch model {
		case Serializable:
			ix.cycles(res, sccs, comp, g, nil)
		case Snapshot:
			ix.cycles(res, sccs, comp, ix.compose(g), g)
		case StrictSerializable:
			ix.cycles(res, sccs, comp, ix.withRealTime(g), nil)
		}
	}
	res.Valid = len(res.Anomalies) == 0
	return res, nil
}

// TestWitnessGraphsAgree: searching only the edges within components
// reports the anomalies, cycles and explanations the whole graph gives.
func TestWitnessGraphsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	violated := 0
	same := func(h *history.History) {
		t.Helper()
		for _, m := range []Model{Serializable, Snapshot, StrictSerializable} {
			want, werr := checkFullGraphs(compact(h), m)
			got, gerr := check(compact(h), m)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
				t.Fatalf("%s: got %+v, %v\nwant %+v, %v", m, got, gerr, want, werr)
			}
			if want != nil && !want.Valid {
				violated++
			}
		}
	}
	sessions := func(h *history.History) *history.History {
		// genHistory gives each transaction a session of its own: so
		// arcs need a few shared ones.
		k := 1 + r.IntN(4)
		for i := range h.Txns {
			h.Txns[i].Session = r.IntN(k)
		}
		return h
	}
	for range 1500 {
		same(randomHistory(r, 2+r.IntN(40), 1+r.IntN(5)))
		same(staleReads(r, 2+r.IntN(40), 1+r.IntN(5)))
		same(sessions(randomHistory(r, 2+r.IntN(40), 1+r.IntN(5))))
		same(sessions(staleReads(r, 2+r.IntN(40), 1+r.IntN(5))))
	}
	h := synth(3000, 20, 8, 2)
	injectLostUpdate(h)
	same(h)
	if violated < 1000 {
		t.Fatalf("only %d violated cases: the witnesses are not exercised", violated)
	}
}

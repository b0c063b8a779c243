package mt

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/txlab/txlab/history"
)

// TestAcyclicAgreesWithTarjan: the order-based test never calls a graph
// with a cycle acyclic, and calls almost every acyclic one so, whether
// its history comes in a serial order or shuffled (back arcs, decided by
// Tarjan over the spans they cover), with and without real-time pairs
// running backwards, cut into up to four chunks.
func TestAcyclicAgreesWithTarjan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(m int) { parallelMin = m }(parallelMin)
	parallelMin = 8
	r := rand.New(rand.NewPCG(13, 14))
	var cyclic, acyclic, byOrder, bySpans, undecided int
	check := func(h *history.History) {
		t.Helper()
		ix, err := index(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []Model{Serializable, Snapshot, StrictSerializable} {
			sccs, _ := ix.cycleTest(m).CyclicSCCs()
			got := ix.acyclic(m)
			switch {
			case len(sccs) > 0 && got:
				t.Fatalf("%s: acyclic, but Tarjan finds %v in %+v", m, sccs, h.Txns)
			case len(sccs) > 0:
				cyclic++
			case !got:
				undecided++
			default:
				acyclic++
				if backArcs(ix, m) == 0 {
					byOrder++
				} else {
					bySpans++
				}
			}
		}
	}
	for range 1500 {
		check(staleReads(r, 4+r.IntN(60), 1+r.IntN(6)))
		// A serial history, then the same transactions with neighbours of
		// different sessions swapped: the same graph, with back arcs.
		h := synth(20+r.IntN(200), 1+r.IntN(8), 1+r.IntN(6), r.Uint64())
		check(h)
		for range len(h.Txns) / 4 {
			i := 1 + r.IntN(len(h.Txns)-2)
			if h.Txns[i].Session != h.Txns[i+1].Session {
				h.Txns[i], h.Txns[i+1] = h.Txns[i+1], h.Txns[i]
			}
		}
		check(h)
	}
	t.Logf("cyclic %d, acyclic %d (%d in order, %d through spans), undecided %d", cyclic, acyclic, byOrder, bySpans, undecided)
	if cyclic < 1000 || byOrder < 1000 || bySpans < 1000 || undecided*20 > acyclic {
		t.Fatalf("cyclic %d, acyclic %d (%d in order, %d through spans), undecided %d: the histories do not exercise every path", cyclic, acyclic, byOrder, bySpans, undecided)
	}
}

// backArcs counts the graph's arcs (and SSER's real-time pairs) that run
// backwards in the history.
func backArcs(ix *indexed, m Model) int {
	back := 0
	for v := range int32(len(ix.h.Txns)) {
		ix.eachOut(m, v, func(v, b int32) bool {
			if b <= v {
				back++
			}
			return true
		})
		if m == StrictSerializable && ix.ends(v) {
			for s := int32(0); s <= v; s++ {
				if ix.starts(s) && ix.h.Txns[v].End < ix.h.Txns[s].Start {
					back++
				}
			}
		}
	}
	return back
}

// TestAcyclicRecorded: histories recorded from PostgreSQL 15 in finish
// order (16 sessions, 50 keys, by the MT workload) are not in a serial
// order — a transaction that commits first may report last — yet the
// order-based test decides the valid ones through the spans of their back
// arcs, and leaves the write skews of REPEATABLE READ to the full test
// (whose verdicts on them TestFigure5 checks).
func TestAcyclicRecorded(t *testing.T) {
	for _, c := range []struct {
		file  string
		model Model
		valid bool
	}{
		{"recorded-postgres-serializable.jsonl", Serializable, true},
		{"recorded-postgres-serializable.jsonl", Snapshot, true},
		{"recorded-postgres-serializable.jsonl", StrictSerializable, true},
		{"recorded-postgres-repeatable-read.jsonl", Snapshot, true},
		{"recorded-postgres-repeatable-read.jsonl", Serializable, false},
		{"recorded-postgres-repeatable-read.jsonl", StrictSerializable, false},
	} {
		h, err := history.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := index(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		res := &Result{}
		if ix.readChecks(res); len(res.Anomalies) > 0 {
			t.Fatalf("%s: %v", c.file, res.Anomalies)
		}
		if got := ix.acyclic(c.model); got != c.valid {
			t.Errorf("%s, %s: acyclic = %v, want %v", c.file, c.model, got, c.valid)
		}
		if back := backArcs(ix, c.model); back == 0 {
			t.Errorf("%s, %s: no back arcs: the spans are not exercised", c.file, c.model)
		}
	}
}

package mt

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
)

// synth makes a strictly serializable MT history of n transactions over keys
// keys and sessions sessions: transactions take effect one by one at time
// 10·i; each runs over an interval around that point, so real time, session
// order and reads all agree with the serial order.
func synth(n, keys, sessions int, seed uint64) *history.History {
	r := rand.New(rand.NewPCG(seed, 7))
	cur := make([]int64, keys)
	init := history.Txn{ID: 0, Init: true, Ops: make([]history.Op, keys)}
	for k := range keys {
		init.Ops[k] = history.Op{Kind: history.W, Key: int64(k), Value: 0}
	}
	h := &history.History{Txns: make([]history.Txn, 0, n+1)}
	h.Txns = append(h.Txns, init)
	next := int64(1)
	lastEnd := make([]int64, sessions)
	for i := 1; i <= n; i++ {
		s := i % sessions
		p := int64(i) * 10
		start := max(p-r.Int64N(40), lastEnd[s]+1)
		end := p + r.Int64N(40)
		lastEnd[s] = end
		if start > p {
			start = p
		}
		t := history.Txn{ID: int64(i), Session: s, Start: start, End: end, Ops: make([]history.Op, 0, 4)}
		k1 := int64(r.IntN(keys))
		k2 := int64(r.IntN(keys))
		readOnly := r.IntN(4) == 0
		for j, k := range []int64{k1, k2} {
			if j == 1 && k == k1 {
				break
			}
			t.Ops = append(t.Ops, history.Op{Kind: history.R, Key: k, Value: cur[k]})
			if !readOnly {
				cur[k] = next
				t.Ops = append(t.Ops, history.Op{Kind: history.W, Key: k, Value: next})
				next++
			}
		}
		h.Txns = append(h.Txns, t)
	}
	return h
}

// injectLostUpdate makes a transaction in the middle read the version its
// predecessor on that key had already overwritten: a DIVERGENCE.
func injectLostUpdate(h *history.History) {
	for i := len(h.Txns) / 2; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		if len(t.Ops) < 2 || t.Ops[1].Kind != history.W {
			continue
		}
		k, v := t.Ops[0].Key, t.Ops[1].Value
		for j := i + 1; j < len(h.Txns); j++ {
			u := &h.Txns[j]
			if len(u.Ops) >= 2 && u.Ops[0].Key == k && u.Ops[0].Value == v && u.Ops[1].Kind == history.W {
				u.Ops[0].Value = t.Ops[0].Value
				// Later reads of u's overwritten version stay consistent:
				// only the read changed.
				return
			}
			if len(u.Ops) > 0 && u.Ops[0].Key == k {
				break
			}
		}
	}
}

func TestSynthValidAndInjected(t *testing.T) {
	for _, m := range []Model{Serializable, Snapshot, StrictSerializable} {
		h := synth(5000, 50, 16, 1)
		res, err := Check(h, m)
		if err != nil || !res.Valid {
			t.Fatalf("%s: synthetic valid history rejected: %v %v", m, err, res.Anomalies)
		}
		injectLostUpdate(h)
		res, err = Check(h, m)
		if err != nil || res.Valid || res.Anomalies[0].Name != "lost-update" {
			t.Fatalf("%s: injected lost update: err %v, result %+v", m, err, res)
		}
	}
}

// randomHistory is an arbitrary (often invalid) MT history: reads pick any
// earlier version, times are random. INT holds, so only cycles decide.
func randomHistory(r *rand.Rand, n, keys int) *history.History {
	return genHistory(r, n, keys, func(vs []int64) (int64, bool) {
		return vs[len(vs)-1-r.IntN(min(len(vs), 2))], true
	})
}

// genHistory makes an MT history of n transactions over keys keys, each
// reading one or two keys and writing each it read with probability 1/2
// when read allows: read picks the version a read returns among the key's
// versions so far, and says whether the transaction may write the key.
func genHistory(r *rand.Rand, n, keys int, read func(vs []int64) (value int64, writable bool)) *history.History {
	vers := make([][]int64, keys)
	init := history.Txn{Init: true}
	for k := range keys {
		vers[k] = []int64{0}
		init.Ops = append(init.Ops, history.Op{Kind: history.W, Key: int64(k)})
	}
	h := &history.History{Txns: []history.Txn{init}}
	next := int64(1)
	for i := 1; i <= n; i++ {
		start := r.Int64N(100)
		t := history.Txn{ID: int64(i), Session: i, Start: start, End: start + 1 + r.Int64N(30)}
		k1, k2 := int64(r.IntN(keys)), int64(r.IntN(keys))
		for j, k := range []int64{k1, k2} {
			if j == 1 && k == k1 {
				break
			}
			v, writable := read(vers[k])
			t.Ops = append(t.Ops, history.Op{Kind: history.R, Key: k, Value: v})
			if writable && r.IntN(2) == 0 {
				t.Ops = append(t.Ops, history.Op{Kind: history.W, Key: k, Value: next})
				vers[k] = append(vers[k], next)
				next++
			}
		}
		h.Txns = append(h.Txns, t)
	}
	return h
}

// TestRealTimeChainAgreesWithDirect: the O(n log n) time-chain construction
// finds a cycle exactly when the direct O(n²) real-time edges do.
func TestRealTimeChainAgreesWithDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	valid, invalid := 0, 0
	for iter := 0; iter < 2000; iter++ {
		h := randomHistory(r, 2+r.IntN(8), 1+r.IntN(3))
		ix, err := index(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		g := ix.build()
		chain, _ := ix.withRealTime(g).CyclicSCCs()
		edges := append([]depgraph.Edge(nil), g.Edges...)
		for a := 1; a < len(h.Txns); a++ {
			for b := 1; b < len(h.Txns); b++ {
				if h.Txns[a].End < h.Txns[b].Start {
					edges = append(edges, depgraph.Edge{From: int32(a), To: int32(b), Kind: depgraph.RT})
				}
			}
		}
		direct, _ := depgraph.Build(g.N, edges).CyclicSCCs()
		if (len(chain) == 0) != (len(direct) == 0) {
			t.Fatalf("history %+v: chain cyclic=%v, direct cyclic=%v", h.Txns, len(chain) > 0, len(direct) > 0)
		}
		if len(direct) == 0 {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 100 || invalid < 100 {
		t.Fatalf("random histories not varied enough: %d valid, %d invalid", valid, invalid)
	}
}

// TestHugeTransactions: a history whose initial transaction writes a million
// keys is checked (it took 300 s when a write's finality was found by
// scanning the rest of its transaction), and a non-initial transaction of a
// million operations is refused as no mini-transaction.
func TestHugeTransactions(t *testing.T) {
	h := synth(1000, 1_000_000, 8, 3)
	res, err := Check(h, Serializable)
	if err != nil || !res.Valid {
		t.Fatalf("valid history with a 1M-key initial transaction: valid=%v, %v", res != nil && res.Valid, err)
	}
	big := history.Txn{ID: 5000, Status: history.OK, Ops: make([]history.Op, 0, 1_000_000)}
	for k := range 500_000 {
		big.Ops = append(big.Ops, history.Op{Kind: history.R, Key: int64(k), Value: 0},
			history.Op{Kind: history.W, Key: int64(k), Value: int64(10_000_000 + k)})
	}
	h.Txns = append(h.Txns, big)
	if _, err := Check(h, Serializable); err == nil || !strings.Contains(err.Error(), "not a mini-transaction") {
		t.Errorf("a 1M-operation transaction: %v, want it refused as no mini-transaction", err)
	}
}

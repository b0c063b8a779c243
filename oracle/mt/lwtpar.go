package mt

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
)

// lwtParallelMin is the fewest transactions worth splitting an LWT check
// by key across cores (a variable so that tests can split small ones).
var lwtParallelMin = 4096

// checkLWTParallel is checkLWT with the keys split across cores:
// linearizability is local, and every lightweight transaction reads and
// writes one key, so each part's chains are checked on their own.
func checkLWTParallel(h *history.History) (*Result, error) {
	parts := min(runtime.GOMAXPROCS(0), 64)
	if len(h.Txns) < lwtParallelMin {
		parts = 1
	}
	return checkLWTSplit(h, parts)
}

// checkLWTSplit is the LWT check with the keys hashed into parts (1 to
// 255), each checked on a core of its own. The result does not depend on
// parts, anomaly for anomaly and in order: each part's anomalies carry
// their place in the one-part check's order and are merged. The first
// problem with the input, in history order (a transaction of the wrong
// shape, or a value written the second time), is the error.
func checkLWTSplit(h *history.History, parts int) (*Result, error) {
	n := len(h.Txns)
	members := make([][]int32, parts)
	var part []uint8 // each transaction's part, math.MaxUint8 for none
	var count []int32
	var written *vtable // one part's table of writes, made in this pass
	if parts > 1 {
		part, count = make([]uint8, n), make([]int32, parts)
	} else {
		members[0], written = make([]int32, 0, n), newVtable(n)
	}
	committedCAS := 0
	for i := range h.Txns {
		t := &h.Txns[i]
		if !lwtShaped(t) {
			// A value written twice before it comes first.
			if err := firstWrittenTwice(h, i); err != nil {
				return nil, err
			}
			return nil, lwtShapeError(t)
		}
		if len(t.Ops) == 0 {
			if parts > 1 {
				part[i] = math.MaxUint8 // in no part: it did nothing
			}
			continue
		}
		if len(t.Ops) == 2 && t.Status == history.OK {
			committedCAS++
		}
		if parts == 1 {
			members[0] = append(members[0], int32(i))
			w := t.Ops[len(t.Ops)-1]
			if prev := written.put(kv{w.Key, w.Value}, int32(i)); prev >= 0 {
				return nil, lwtTwice(h, prev, int32(i))
			}
			continue
		}
		k := uint64(t.Ops[0].Key) * 0x9E3779B97F4A7C15
		p := uint8((k >> 32) % uint64(parts))
		part[i] = p
		count[p]++
	}
	if parts > 1 {
		for p := range members {
			members[p] = make([]int32, 0, count[p])
		}
		for i, p := range part {
			if p != math.MaxUint8 {
				members[p] = append(members[p], int32(i))
			}
		}
	}
	out := make([]lwtPart, parts)
	// Shared, each part writing only its own transactions' entries.
	inChain, succ := make([]bool, n), make([]int32, n)
	each(parts, func(p int) { out[p] = checkLWTPart(h, members[p], written, succ, inChain) })

	// The value written twice that comes first in history order: the part
	// that met its duplicate earliest.
	dup := -1
	for p := range out {
		if d := out[p].dup; d[1] >= 0 && (dup < 0 || d[1] < out[dup].dup[1]) {
			dup = p
		}
	}
	if dup >= 0 {
		return nil, lwtTwice(h, out[dup].dup[0], out[dup].dup[1])
	}
	res := &Result{Model: Linearizable, Txns: n}
	ix := &indexed{h: h}
	found := out[0].anomalies
	chainedCAS := out[0].chainedCAS // committed CASes reached by a chain
	for p := 1; p < parts; p++ {
		found = append(found, out[p].anomalies...)
		chainedCAS += out[p].chainedCAS
	}
	if parts > 1 {
		slices.SortStableFunc(found, func(a, b lwtAnomaly) int {
			return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.at, b.at))
		})
	}
	for _, a := range found {
		if len(res.Anomalies) < maxAnomalies {
			res.Anomalies = append(res.Anomalies, Anomaly{Name: a.name, Txns: ix.refs(a.txns...), Explanation: a.text})
		}
	}
	// Committed CASes no chain reached read a value that was never current
	// (written by a CAS that was itself off the chain, e.g. a cycle).
	for i := 0; i < n && chainedCAS < committedCAS; i++ {
		t := &h.Txns[i]
		if !inChain[i] && t.Status == history.OK && len(t.Ops) == 2 && len(res.Anomalies) == 0 {
			res.Anomalies = append(res.Anomalies, Anomaly{Name: semantics.ThinAirRead, Txns: ix.refs(int32(i)),
				Explanation: fmt.Sprintf("T%d changed key %d from %d, a value that was never current", t.ID, t.Ops[0].Key, t.Ops[0].Value)})
		}
	}
	res.Valid = len(res.Anomalies) == 0
	return res, nil
}

// firstWrittenTwice returns the error of the first value written a second
// time by one of the first end transactions (all of the right shape), or
// nil.
func firstWrittenTwice(h *history.History, end int) error {
	written := newVtable(end)
	for i := range end {
		t := &h.Txns[i]
		if len(t.Ops) == 0 {
			continue
		}
		w := t.Ops[len(t.Ops)-1]
		if prev := written.put(kv{w.Key, w.Value}, int32(i)); prev >= 0 {
			return lwtTwice(h, prev, int32(i))
		}
	}
	return nil
}

// lwtPart is what one part of the keys found.
type lwtPart struct {
	dup        [2]int32 // the first value written twice: earlier and later writer, or -1
	anomalies  []lwtAnomaly
	chainedCAS int
}

// lwtAnomaly is an anomaly with its place in the serial check's order:
// phase 0 (the pass over transactions, at the transaction's index) before
// phase 1 (the chains, at their insert's index).
type lwtAnomaly struct {
	phase, at int32
	name      semantics.Anomaly
	txns      []int32
	text      string
}

// checkLWTPart runs the LWT check's passes over the transactions ts (history
// order) of one part of the keys; written is the table of their writes, or
// nil to make it here; succ and inChain are shared, each part setting only
// its own transactions' entries.
func checkLWTPart(h *history.History, ts []int32, written *vtable, succ []int32, inChain []bool) lwtPart {
	out := lwtPart{dup: [2]int32{-1, -1}}
	if written == nil {
		written = newVtable(len(ts))
		for _, i := range ts {
			t := &h.Txns[i]
			w := t.Ops[len(t.Ops)-1]
			if prev := written.put(kv{w.Key, w.Value}, i); prev >= 0 {
				out.dup = [2]int32{prev, i}
				return out
			}
		}
	}
	add := func(phase, at int32, name semantics.Anomaly, txns []int32, format string, a ...any) {
		if len(out.anomalies) < maxAnomalies {
			out.anomalies = append(out.anomalies, lwtAnomaly{phase: phase, at: at, name: name, txns: txns, text: fmt.Sprintf(format, a...)})
		}
	}
	for _, i := range ts {
		succ[i] = -1
	}
	insertOf := make(map[int64]int32)
	var inserts []int32
	for _, i := range ts {
		t := &h.Txns[i]
		if t.Status == history.Fail {
			continue
		}
		if len(t.Ops) == 1 {
			k := t.Ops[0].Key
			if p, ok := insertOf[k]; ok {
				if t.Status == history.OK && h.Txns[p].Status == history.OK {
					add(0, i, semantics.LostUpdate, []int32{p, i}, "T%d and T%d both inserted key %d: an insert-if-not-exists succeeded twice", h.Txns[p].ID, t.ID, k)
				}
				if h.Txns[p].Status == history.OK {
					continue
				}
			}
			insertOf[k] = i
			inserts = append(inserts, i)
			continue
		}
		r := t.Ops[0]
		p := written.get(kv{r.Key, r.Value})
		if p < 0 || h.Txns[p].Status == history.Fail {
			if t.Status == history.OK {
				add(0, i, semantics.ThinAirRead, []int32{i}, "T%d changed key %d from %d, a value no committed transaction wrote", t.ID, r.Key, r.Value)
			}
			continue
		}
		if q := succ[p]; q >= 0 {
			if t.Status == history.OK && h.Txns[q].Status == history.OK {
				add(0, i, semantics.LostUpdate, []int32{p, q, i}, "T%d and T%d both changed key %d from %d (written by T%d): one compare-and-set overwrote the other",
					h.Txns[q].ID, t.ID, r.Key, r.Value, h.Txns[p].ID)
				continue
			}
			if h.Txns[q].Status == history.OK {
				continue
			}
		}
		succ[p] = i
	}
	var chain []int32
	for _, ins := range inserts {
		chain = chain[:0]
		for t := ins; t >= 0 && !inChain[t]; t = succ[t] {
			inChain[t] = true
			chain = append(chain, t)
			if tx := &h.Txns[t]; tx.Status == history.OK && len(tx.Ops) == 2 {
				out.chainedCAS++
			}
		}
		if before, after, ok := realTimeViolation(h, chain); ok {
			add(1, ins, semantics.RealTimeViolation, []int32{before, after}, "%s", realTimeText(h, before, after))
		}
	}
	return out
}

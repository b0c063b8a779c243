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
// writes one key, so each part's chains are checked on their own. The
// result is the serial check's, anomaly for anomaly and in the same order:
// each part's anomalies carry their place in the serial check's order and
// are merged. A history with a transaction of the wrong shape goes to the
// serial check, which names the first problem.
func checkLWTParallel(h *history.History) (*Result, error) {
	n := len(h.Txns)
	parts := min(runtime.GOMAXPROCS(0), 64)
	if n < lwtParallelMin || parts < 2 {
		return checkLWT(h)
	}
	part := make([]uint8, n)
	count := make([]int32, parts)
	committedCAS := 0
	for i := range h.Txns {
		t := &h.Txns[i]
		switch {
		case t.Init:
			return checkLWT(h)
		case len(t.Ops) == 1 && t.Ops[0].Kind == history.W:
		case len(t.Ops) == 2 && t.Ops[0].Kind == history.R && t.Ops[1].Kind == history.W && t.Ops[0].Key == t.Ops[1].Key:
			if t.Status == history.OK {
				committedCAS++
			}
		case len(t.Ops) == 0 && t.Status != history.OK:
			part[i] = math.MaxUint8 // in no part: it did nothing
			continue
		default:
			return checkLWT(h)
		}
		k := uint64(t.Ops[0].Key) * 0x9E3779B97F4A7C15
		p := uint8((k >> 32) % uint64(parts))
		part[i] = p
		count[p]++
	}
	members := make([][]int32, parts)
	for p := range members {
		members[p] = make([]int32, 0, count[p])
	}
	for i, p := range part {
		if p != math.MaxUint8 {
			members[p] = append(members[p], int32(i))
		}
	}
	out := make([]lwtPart, parts)
	// Shared, each part writing only its own transactions' entries.
	inChain, succ := make([]bool, n), make([]int32, n)
	each(parts, func(p int) { out[p] = checkLWTPart(h, members[p], succ, inChain) })

	res := &Result{Model: Linearizable, Txns: n}
	ix := &indexed{h: h}
	// The serial check stops at the first value written twice, in history
	// order: the part that met its duplicate earliest.
	dup := -1
	for p := range out {
		if d := out[p].dup; d[1] >= 0 && (dup < 0 || d[1] < out[dup].dup[1]) {
			dup = p
		}
	}
	if dup >= 0 {
		a, b := out[dup].dup[0], out[dup].dup[1]
		w := h.Txns[b].Ops[len(h.Txns[b].Ops)-1]
		return nil, badInput("value %d is written to key %d twice, by T%d and T%d", w.Value, w.Key, h.Txns[a].ID, h.Txns[b].ID)
	}
	var found []lwtAnomaly
	chainedCAS := 0
	for p := range out {
		found = append(found, out[p].anomalies...)
		chainedCAS += out[p].chainedCAS
	}
	slices.SortStableFunc(found, func(a, b lwtAnomaly) int {
		return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.at, b.at))
	})
	for _, a := range found {
		if len(res.Anomalies) < maxAnomalies {
			res.Anomalies = append(res.Anomalies, Anomaly{Name: a.name, Txns: ix.refs(a.txns...), Explanation: a.text})
		}
	}
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

// checkLWTPart runs checkLWT's passes over the transactions ts (history
// order) of one part of the keys; succ and inChain are shared, each part
// setting only its own transactions' entries.
func checkLWTPart(h *history.History, ts []int32, succ []int32, inChain []bool) lwtPart {
	out := lwtPart{dup: [2]int32{-1, -1}}
	written := newVtable(len(ts))
	for _, i := range ts {
		t := &h.Txns[i]
		w := t.Ops[len(t.Ops)-1]
		if prev := written.put(kv{w.Key, w.Value}, i); prev >= 0 {
			out.dup = [2]int32{prev, i}
			return out
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

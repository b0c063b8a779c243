package mt

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/txlab/txlab/depgraph"
)

// acyclic reports whether the cycle test's graph for model (cycleTest's,
// with SSER's real-time order) certainly has no cycle, without building it
// or running Tarjan over it when the history's own order is nearly a
// serialization, as a recorded history in finish order is. false means
// "not shown": Check then runs the full cycle test, so a history with a
// cycle gets exactly the witnesses it got before.
//
// The argument: place every transaction at its index in the history. An
// arc u → v is forward when v comes after u, else it is a back arc, and it
// spans the positions [v, u]. Follow any cycle around: it climbs past every
// point between its lowest and its highest member and must come down past
// each again, on a back arc spanning it; so the back arcs of a cycle cover
// its whole range, and the cycle lies inside one interval of the merged
// spans of all back arcs. A graph without back arcs is acyclic, and one with
// a few needs Tarjan only over the intervals they span, each on its own
// and on every core. For SSER the arcs are the dependency arcs and the
// real-time pairs (T ended before S started) that the chain of time nodes
// stands for; a pair whose T comes later than S is a back arc too.
func (ix *indexed) acyclic(model Model) bool {
	a := ix.fastArcs()
	if a.diverges {
		return false
	}
	n := len(ix.h.Txns)
	nc := workers(n)
	// Past this many back arcs the history's order is far from a
	// serialization: the spans would cover most of it, and hold more
	// memory than the whole graph. (PostgreSQL's serializable histories
	// in finish order have a back arc for one transaction in 15.)
	budget := int64(n/2 + 64)
	var spent atomic.Int64
	spans := make([][]span, nc)
	// Per chunk, for SSER, the latest start of the chunk's transactions
	// that real-time order can place after another.
	var startMax []int64
	if model == StrictSerializable {
		startMax = make([]int64, nc)
	}
	each(nc, func(c int) {
		lo, hi := int32(n*c/nc), int32(n*(c+1)/nc)
		var sp []span
		mark := func(v, b int32) bool {
			if b > v {
				return true
			}
			sp = append(sp, span{b, v})
			return spent.Add(1) <= budget
		}
		latest := int64(math.MinInt64)
		for v := lo; v < hi; v++ {
			if !ix.eachOut(model, v, mark) {
				return
			}
			if startMax != nil && ix.starts(v) {
				latest = max(latest, ix.h.Txns[v].Start)
			}
		}
		if startMax != nil {
			startMax[c] = latest
		}
		spans[c] = sp
	})
	if spent.Load() > budget {
		return false
	}
	var all []span
	for _, sp := range spans {
		all = append(all, sp...)
	}
	if startMax != nil {
		rt, ok := ix.realTimeBackSpans(startMax, budget-spent.Load())
		if !ok {
			return false
		}
		all = append(all, rt...)
	}
	if len(all) == 0 {
		return true
	}
	merged := mergeSpans(all)
	var cyclic atomic.Bool
	each(min(nc, len(merged)), func(c int) {
		for i := c; i < len(merged) && !cyclic.Load(); i += nc {
			if !ix.spanAcyclic(model, merged[i]) {
				cyclic.Store(true)
			}
		}
	})
	return !cyclic.Load()
}

// span is the interval of history positions [lo, hi] a back arc covers.
type span struct{ lo, hi int32 }

// mergeSpans sorts spans and joins those that overlap or touch (a cycle
// may pass through the one position two spans share).
func mergeSpans(all []span) []span {
	slices.SortFunc(all, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	out := all[:1]
	for _, s := range all[1:] {
		if last := &out[len(out)-1]; s.lo <= last.hi {
			last.hi = max(last.hi, s.hi)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// eachOut calls f(v, b) for each arc v → b of the cycle test's graph for
// model, except SSER's time arcs: session successor, readers of v's
// versions and v's rw targets (SER, SSER); for SI, G' = (so ∪ wr ∪ ww) ;
// rw?, each so or wr arc v → b and then v → c for b's rw arcs b → c. It
// stops, returning false, when f does.
func (ix *indexed) eachOut(model Model, v int32, f func(v, b int32) bool) bool {
	a := ix.arcs
	base := func(b int32) bool {
		if !f(v, b) {
			return false
		}
		if model == Snapshot {
			for _, u := range a.rw[2*b : 2*b+2] {
				if u != 0 && !f(v, u-1) {
					return false
				}
			}
		}
		return true
	}
	if b := a.next[v]; b >= 0 && !base(b) {
		return false
	}
	for _, r := range ix.byVer[ix.verOff[v]:ix.verOff[v+1]] {
		if !base(r.reader()) {
			return false
		}
	}
	if model != Snapshot {
		for _, u := range a.rw[2*v : 2*v+2] {
			if u != 0 && !f(v, u-1) {
				return false
			}
		}
	}
	return true
}

// realTimeBackSpans returns the spans of SSER's real-time pairs that run
// backwards in the history: T at i ended before S at j ≤ i started. For
// each such T only the widest one matters (the earliest such S), since the
// others lie inside it. It gives up (ok false) past budget spans.
func (ix *indexed) realTimeBackSpans(chunkMax []int64, budget int64) (spans []span, ok bool) {
	h := ix.h
	n := len(h.Txns)
	nc := len(chunkMax)
	before := make([]int64, nc) // the latest start before chunk c
	m := int64(math.MinInt64)
	for c := range nc {
		before[c] = m
		m = max(m, chunkMax[c])
	}
	late := make([][]int32, nc) // the transactions that ended before an earlier one started
	var spent atomic.Int64
	each(nc, func(c int) {
		m := before[c]
		for i := int32(n * c / nc); i < int32(n*(c+1)/nc); i++ {
			if ix.starts(i) {
				m = max(m, h.Txns[i].Start)
			}
			if ix.ends(i) && h.Txns[i].End < m {
				if spent.Add(1) > budget {
					return
				}
				late[c] = append(late[c], i)
			}
		}
	})
	if spent.Load() > budget {
		return nil, false
	}
	if spent.Load() == 0 {
		return nil, true
	}
	// The latest start up to each position, to find each late T's earliest S.
	latest := make([]int64, n)
	m = math.MinInt64
	for i := range int32(n) {
		if ix.starts(i) {
			m = max(m, h.Txns[i].Start)
		}
		latest[i] = m
	}
	for _, ts := range late {
		for _, i := range ts {
			end := h.Txns[i].End
			j, _ := slices.BinarySearchFunc(latest[:i+1], end, func(s, e int64) int {
				if s > e {
					return 1
				}
				return -1
			})
			spans = append(spans, span{int32(j), i})
		}
	}
	return spans, true
}

// spanAcyclic runs Tarjan on the part of the graph inside s: its
// transactions, the arcs between them and, for SSER, a chain of time nodes
// over their ends (realTime's, for these transactions alone).
func (ix *indexed) spanAcyclic(model Model, s span) bool {
	k := int(s.hi - s.lo + 1)
	var ends []timedEnd
	var latest []int32
	if model == StrictSerializable {
		for i := s.lo; i <= s.hi; i++ {
			if ix.ends(i) {
				ends = append(ends, newTimedEnd(ix.h.Txns[i].End, i-s.lo))
			}
		}
		sortEnds(ends)
		latest = make([]int32, k)
		j := 0
		for i := s.lo; i <= s.hi; i++ {
			latest[i-s.lo] = -1
			if ix.starts(i) {
				j = endsBefore(ends, ix.h.Txns[i].Start, j)
				latest[i-s.lo] = int32(j - 1)
			}
		}
	}
	g := depgraph.BuildAdjFunc(k+len(ends), func(add func(from, to int32)) {
		for v := s.lo; v <= s.hi; v++ {
			ix.eachOut(model, v, func(v, b int32) bool {
				if s.lo <= b && b <= s.hi {
					add(v-s.lo, b-s.lo)
				}
				return true
			})
		}
		for i, e := range ends {
			add(e.t, int32(k+i))
			if i+1 < len(ends) {
				add(int32(k+i), int32(k+i+1))
			}
		}
		for v, j := range latest {
			if j >= 0 {
				add(int32(k)+j, int32(v))
			}
		}
	})
	sccs, _ := g.CyclicSCCs()
	return len(sccs) == 0
}

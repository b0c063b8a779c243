package mt

import (
	"math"

	"github.com/txlab/txlab/depgraph"
)

// cycleTest returns the unlabeled graph whose cycles decide model: Ĝ for
// SER, G' = (so ∪ wr ∪ ww) ; rw? for SI, Ĝ plus the time chain for SSER.
// Its arcs are those of the labeled graphs (build, compose and withRealTime,
// in labeled_test.go) in the same order per node, less the ww edges, so its
// components (and their order) are theirs, and the witnesses are searched
// in it (witness.go).
//
// Each node's arcs are found from the node alone (its session successor,
// the reads of its versions, its rw targets), so the graph is built per
// range of nodes on every core: out-degrees, offsets, then targets. A
// history in which a version was overwritten twice (DIVERGENCE: invalid
// under every model) has readers with more rw arcs than rwTargets holds;
// its graph is built serially from the arcs in order (cycleTestSerial).
func (ix *indexed) cycleTest(model Model) *depgraph.Adj {
	a := ix.fastArcs()
	if a.diverges {
		return ix.cycleTestSerial(model)
	}
	n := len(ix.h.Txns)
	var ends []timedEnd
	var latest []int32
	if model == StrictSerializable {
		ends = ix.sortedEnds()
		latest = ix.latestEnds(ends)
	}
	m := len(ends)
	nc := workers(n)
	if model == Snapshot && a.rwDeg == nil {
		a.rwDeg = make([]uint8, n)
		each(nc, func(c int) {
			for s := int32(n * c / nc); s < int32(n*(c+1)/nc); s++ {
				a.rwDeg[s] = uint8(a.rwDegree(s))
			}
		})
	}
	// off[v+2] counts v's arcs; after the prefix sums off[v+1] is v's
	// start, the cursor while placing, and ends as v's end = v+1's start
	// (as in depgraph.BuildAdjFunc).
	off := make([]int32, n+m+2)
	each(nc, func(c int) {
		for v := int32(n * c / nc); v < int32(n*(c+1)/nc); v++ {
			off[v+2] = ix.outDegree(model, v)
		}
	})
	if m > 0 {
		for _, e := range ends {
			off[e.t+2]++ // T → its end's time node
		}
		for i := range m - 1 {
			off[n+i+2]++ // time node → the next one
		}
		for _, j := range latest {
			if j >= 0 {
				off[int32(n)+j+2]++ // time node → a transaction that started after it
			}
		}
	}
	for v := 2; v < len(off); v++ {
		off[v] += off[v-1]
	}
	to := make([]int32, off[n+m+1])
	each(nc, func(c int) {
		for v := int32(n * c / nc); v < int32(n*(c+1)/nc); v++ {
			off[v+1] += ix.placeOut(model, v, to[off[v+1]:])
		}
	})
	if m > 0 {
		// The arcs realTimeArcs gives, each after its source's others.
		for i, e := range ends {
			to[off[e.t+1]] = int32(n + i)
			off[e.t+1]++
		}
		for i := range m - 1 {
			to[off[n+i+1]] = int32(n + i + 1)
			off[n+i+1]++
		}
		for s, j := range latest {
			if j >= 0 {
				to[off[int32(n)+j+1]] = int32(s)
				off[int32(n)+j+1]++
			}
		}
	}
	return &depgraph.Adj{N: n + m, Off: off[:n+m+1], To: to}
}

// outDegree is the number of transaction v's arcs in the cycle test's
// graph for model, besides SSER's arc into the time chain.
func (ix *indexed) outDegree(model Model, v int32) int32 {
	a := ix.arcs
	if model != Snapshot {
		return b2i(a.next[v] >= 0) + ix.verOff[v+1] - ix.verOff[v] + a.rwDegree(v)
	}
	// G': each so or wr arc v → b, then v → c for each rw arc b → c.
	d := int32(0)
	if b := a.next[v]; b >= 0 {
		d += 1 + int32(a.rwDeg[b])
	}
	for _, r := range ix.byVer[ix.verOff[v]:ix.verOff[v+1]] {
		d += 1 + int32(a.rwDeg[r.reader()])
	}
	return d
}

// placeOut writes v's outDegree arcs to to, in eachArc's order per node
// (so, wr, rw) or composeAdj's, and returns their number.
func (ix *indexed) placeOut(model Model, v int32, to []int32) int32 {
	a := ix.arcs
	k := int32(0)
	put := func(b int32) {
		to[k] = b
		k++
		if model == Snapshot && a.rwDeg[b] != 0 {
			k += a.placeRW(b, to[k:])
		}
	}
	if b := a.next[v]; b >= 0 {
		put(b)
	}
	for _, r := range ix.byVer[ix.verOff[v]:ix.verOff[v+1]] {
		put(r.reader())
	}
	if model != Snapshot {
		k += a.placeRW(v, to[k:])
	}
	return k
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// fastArcs is, besides the reads grouped by version, what cycleTest builds
// the graph from.
type fastArcs struct {
	// next[i] is i's successor in its session (its so arc), or -1.
	next []int32
	// rw[2s+k] is one plus the transaction that overwrote the version of
	// s's external read of slot k, 0 if none: s's rw arcs, in antiDeps'
	// order. Unset when diverges.
	rw       []int32
	diverges bool // a version has two overwriters
	// rwDeg[s] is s's number of rw arcs, for SI's composition, which asks
	// for it at each arc into s: a byte a transaction stays in the cache
	// where rw's eight bytes do not, and the look-ups into rw are made
	// only for the readers with arcs.
	rwDeg []uint8
}

// fastArcs computes ix.arcs once.
func (ix *indexed) fastArcs() *fastArcs {
	if ix.arcs == nil {
		a := &fastArcs{}
		if a.rw, a.diverges = ix.rwTargets(); !a.diverges {
			a.next = ix.sessionNext()
		}
		ix.arcs = a
	}
	return ix.arcs
}

func (a *fastArcs) rwDegree(s int32) int32 {
	return b2i(a.rw[2*s] != 0) + b2i(a.rw[2*s+1] != 0)
}

func (a *fastArcs) placeRW(s int32, to []int32) int32 {
	k := int32(0)
	for _, u := range a.rw[2*s : 2*s+2] {
		if u != 0 {
			to[k] = u - 1
			k++
		}
	}
	return k
}

// rwTargets finds every reader's rw arcs (antiDeps), per range of writers
// on every core: in a version's group of reads, the one reader that also
// wrote the key overwrote it, and each other reader gets an arc to it, in
// the slot its read has among its reader's (so a reader's arcs come out in
// versions order, as antiDeps gives them). diverges is true, and rw nil,
// when a version has two or more overwriters.
func (ix *indexed) rwTargets() (rw []int32, diverges bool) {
	rs := ix.versions()
	n := len(ix.h.Txns)
	nc := workers(n)
	rw = make([]int32, 2*n)
	div := make([]bool, nc)
	each(nc, func(c int) {
		end := ix.verOff[n*(c+1)/nc]
		for lo := ix.verOff[n*c/nc]; lo < end; {
			hi := lo + 1
			for hi < end && rs[hi].writer == rs[lo].writer && rs[hi].key == rs[lo].key {
				hi++
			}
			ver := rs[lo:hi]
			lo = hi
			u := int32(-1)
			for _, r := range ver {
				if r.writes() {
					if u >= 0 {
						div[c] = true
						return
					}
					u = r.reader()
				}
			}
			if u < 0 {
				continue
			}
			for _, r := range ver {
				if s := r.reader(); s != u {
					rw[2*s+r.slot()] = u + 1
				}
			}
		}
	})
	for _, d := range div {
		if d {
			return nil, true
		}
	}
	return rw, false
}

// sessionNext returns, for every included non-initial transaction, the
// next one of its session (sessionOrder's arcs), else -1. Each range of
// the history links its own transactions and notes each session's first
// and last; the ranges are then joined per session.
func (ix *indexed) sessionNext() []int32 {
	h := ix.h
	n := len(h.Txns)
	nc := workers(n)
	next := ix.spareInt32s()
	lo, hi := ix.sessionRange()
	if hi < lo || uint(hi)-uint(lo) >= 1<<20 { // unsigned: hi-lo may overflow
		// Sparse session numbers: serially, with a map.
		for i := range next {
			next[i] = -1
		}
		ix.sessionOrder(func(p, i int32) { next[p] = i })
		return next
	}
	// first[c][s], last[c][s]: one plus range c's first and last
	// transaction of session lo+s, 0 if none: 8 bytes a session number a
	// range, so fewer ranges where the numbers span far (up to 1<<20, a
	// session a transaction on 64 cores would be 512 MB): at most 8 bytes
	// a transaction in all.
	for nc > 1 && nc*(hi-lo+1) > n {
		nc /= 2
	}
	first, last := make([][]int32, nc), make([][]int32, nc)
	each(nc, func(c int) {
		fst, lst := make([]int32, hi-lo+1), make([]int32, hi-lo+1)
		for i := n * c / nc; i < n*(c+1)/nc; i++ {
			next[i] = -1
			if !ix.included[i] || h.Txns[i].Init {
				continue
			}
			s := h.Txns[i].Session - lo
			if p := lst[s]; p > 0 {
				next[p-1] = int32(i)
			} else {
				fst[s] = int32(i) + 1
			}
			lst[s] = int32(i) + 1
		}
		first[c], last[c] = fst, lst
	})
	for s := range hi - lo + 1 {
		p := int32(0)
		for c := range nc {
			if f := first[c][s]; f > 0 {
				if p > 0 {
					next[p-1] = f - 1
				}
				p = last[c][s]
			}
		}
	}
	return next
}

// sessionRange returns the smallest and largest session number (hi < lo
// for an empty history): noted by the parallel index, else found here.
func (ix *indexed) sessionRange() (lo, hi int) {
	if ix.sessions.known {
		return ix.sessions.lo, ix.sessions.hi
	}
	h := ix.h
	n := len(h.Txns)
	nc := workers(n)
	spans := make([]sessionSpan, nc)
	each(nc, func(c int) {
		sp := emptySpan
		for i := n * c / nc; i < n*(c+1)/nc; i++ {
			sp.add(h.Txns[i].Session)
		}
		spans[c] = sp
	})
	sp := emptySpan
	for _, s := range spans {
		sp.merge(s)
	}
	return sp.lo, sp.hi
}

// sessionSpan is a range of session numbers.
type sessionSpan struct {
	lo, hi int
	known  bool // set by the parallel index
}

var emptySpan = sessionSpan{lo: math.MaxInt, hi: math.MinInt}

func (s *sessionSpan) add(x int) { s.lo, s.hi = min(s.lo, x), max(s.hi, x) }

func (s *sessionSpan) merge(t sessionSpan) { s.lo, s.hi = min(s.lo, t.lo), max(s.hi, t.hi) }

// cycleTestSerial is cycleTest built from the arcs in order: three passes
// over them (count, place; SI composes two graphs) on one core.
func (ix *indexed) cycleTestSerial(model Model) *depgraph.Adj {
	n := len(ix.h.Txns)
	switch model {
	case Snapshot:
		main := depgraph.BuildAdjFunc(n, func(add func(a, b int32)) { ix.eachArc(add, nil) })
		rw := depgraph.BuildAdjFunc(n, func(add func(a, b int32)) { ix.eachArc(nil, add) })
		return composeAdj(main, rw)
	case StrictSerializable:
		ends := ix.sortedEnds()
		latest := ix.latestEnds(ends)
		return depgraph.BuildAdjFunc(n+len(ends), func(add func(a, b int32)) {
			ix.eachArc(add, add)
			ix.realTimeArcs(ends, latest, add)
		})
	}
	return depgraph.BuildAdjFunc(n, func(add func(a, b int32)) { ix.eachArc(add, add) })
}

// composeAdj is compose on unlabeled graphs: every non-rw arc a → b stays,
// followed by a → c for each rw arc b → c, in that order (compose's order
// after depgraph.Build). Two passes (degrees, then targets) write the
// result in place: no intermediate arc list.
func composeAdj(main, rw *depgraph.Adj) *depgraph.Adj {
	n := main.N
	nc := workers(n)
	off := make([]int32, n+1)
	// Degrees per range of nodes in parallel, then the offsets, then the
	// targets, each range writing its own part of to.
	each(nc, func(c int) {
		for a := int32(n * c / nc); a < int32(n*(c+1)/nc); a++ {
			d := int32(0)
			for _, b := range main.Out(a) {
				d += 1 + rw.Off[b+1] - rw.Off[b]
			}
			off[a+1] = d
		}
	})
	for a := range n {
		off[a+1] += off[a]
	}
	to := make([]int32, off[n])
	each(nc, func(c int) {
		lo := int32(n * c / nc)
		k := off[lo]
		for a := lo; a < int32(n*(c+1)/nc); a++ {
			for _, b := range main.Out(a) {
				to[k] = b
				k++
				k += int32(copy(to[k:], rw.Out(b)))
			}
		}
	})
	return &depgraph.Adj{N: n, Off: off, To: to}
}

package mt

import "github.com/txlab/txlab/depgraph"

// cycleTest returns the unlabeled graph whose cycles decide model: Ĝ for
// SER, G' = (so ∪ wr ∪ ww) ; rw? for SI, Ĝ plus the time chain for SSER.
// Its arcs are those of build, compose and withRealTime in the same order
// per node, so its components (and their order) are theirs.
func (ix *indexed) cycleTest(model Model) *depgraph.Adj {
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

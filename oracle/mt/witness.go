package mt

import (
	"slices"

	"github.com/txlab/txlab/depgraph"
)

// The witnesses of a cyclic history are searched in the cycle test's own
// graph (cycleTest's depgraph.Adj: 4 bytes an arc), not in the labeled
// graphs of labeled_test.go (36 bytes an edge, and for SSER a copy with the
// time chain: with them, SSER's check of a 3M-transaction history with one
// lost update peaked at 1.5 GB of RSS; without, 760 MB). Each node's arcs
// there are its labeled edges in the same order, less the ww edges (each
// right after the wr edge between the same two transactions; for SI, the
// composed edges through them, right after those through the wr edge). A
// breadth-first search that takes the first arc to each node never takes
// such a repeat, so ShortestCycle's search over the labeled graph and
// shortestCycle's over the arcs reach the same nodes by the same arcs, and
// an arc's label follows from its place among its node's arcs (arcSteps):
// the same cycles and steps, the same anomalies.

// arcRef is an arc of an Adj: its source and its index in Adj.To.
type arcRef struct{ from, at int32 }

// witnesses is cycles on the cycle test's graph a of model, whose cyclic
// components are sccs and every node's component comp.
func (ix *indexed) witnesses(res *Result, model Model, a *depgraph.Adj, sccs [][]int32, comp []int32) {
	for _, scc := range sccs {
		if len(res.Anomalies) >= maxAnomalies {
			return
		}
		var out []step
		for _, arc := range shortestCycle(a, scc, comp, 8) {
			out = ix.arcSteps(model, a, arc, out)
		}
		res.Anomalies = append(res.Anomalies, ix.explain(ix.collapse(out)))
	}
}

// shortestCycle is depgraph.Graph.ShortestCycle on an Adj: the shortest
// cycle among breadth-first searches from the first tries members of a
// component, following arcs within it; the arcs in cycle order.
func shortestCycle(a *depgraph.Adj, members []int32, comp []int32, tries int) []arcRef {
	if len(members) == 0 {
		return nil
	}
	c := comp[members[0]]
	parent := make(map[int32]arcRef, len(members))
	var best []arcRef
	if tries <= 0 || tries > len(members) {
		tries = len(members)
	}
	for t := 0; t < tries; t++ {
		s := members[t]
		clear(parent)
		queue := []int32{s}
		found := false
	bfs:
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for at := a.Off[v]; at < a.Off[v+1]; at++ {
				to := a.To[at]
				if comp[to] != c {
					continue
				}
				if to == s {
					parent[s] = arcRef{v, at}
					found = true
					break bfs
				}
				if _, seen := parent[to]; !seen {
					parent[to] = arcRef{v, at}
					queue = append(queue, to)
				}
			}
		}
		if !found {
			continue
		}
		var cyc []arcRef
		for e := parent[s]; ; e = parent[e.from] {
			cyc = append(cyc, e)
			if e.from == s {
				break
			}
		}
		slices.Reverse(cyc)
		if best == nil || len(cyc) < len(best) {
			best = cyc
		}
		if len(best) <= 2 {
			break
		}
	}
	return best
}

// arcSteps appends the steps of arc (expand's for the labeled edge it
// stands for): one, or for a composed SI arc v → c through b, v → b and
// b →rw c.
func (ix *indexed) arcSteps(model Model, a *depgraph.Adj, arc arcRef, out []step) []step {
	n := int32(len(ix.h.Txns))
	v, to := arc.from, a.To[arc.at]
	if v >= n || to >= n {
		return append(out, step{v, to, depgraph.RT, 0}) // into, along or out of the time chain
	}
	p := arc.at - a.Off[v] // the arc's place among v's
	next := ix.sessionSuccessors()[v]
	reads := ix.byVer[ix.verOff[v]:ix.verOff[v+1]] // of v's versions: its wr arcs, in order
	if model != Snapshot {
		switch {
		case next >= 0 && p == 0:
			return append(out, step{v, to, depgraph.SO, 0})
		case next >= 0:
			p--
		}
		if int(p) < len(reads) {
			return append(out, step{v, to, depgraph.WR, reads[p].key})
		}
		rw := ix.rwOut(v, nil)
		return append(out, step{v, to, depgraph.RW, rw[int(p)-len(reads)].key})
	}
	// G': each so or wr arc v → b, then v → c for each rw arc b → c.
	var buf []rwArc
	group := func(b int32, kind depgraph.Kind, key int64) ([]step, bool) {
		if p == 0 {
			return append(out, step{v, b, kind, key}), true
		}
		buf = ix.rwOut(b, buf[:0])
		if int(p) <= len(buf) {
			r := buf[p-1]
			return append(out, step{v, b, kind, key}, step{b, r.to, depgraph.RW, r.key}), true
		}
		p -= 1 + int32(len(buf))
		return out, false
	}
	if next >= 0 {
		if s, ok := group(next, depgraph.SO, 0); ok {
			return s
		}
	}
	for _, r := range reads {
		if s, ok := group(r.reader(), depgraph.WR, r.key); ok {
			return s
		}
	}
	panic("mt: an arc of the cycle test's graph without an edge") // unreachable
}

// rwArc is an rw edge's target and key.
type rwArc struct {
	to  int32
	key int64
}

// rwOut appends s's rw edges in antiDeps' order: for each version s read
// (in versions order), each other reader of it that overwrote it.
func (ix *indexed) rwOut(s int32, out []rwArc) []rwArc {
	r0, r1, k := ix.extReads(int(s))
	rs := []readRec{r0, r1}[:k]
	if k == 2 && r1.before(r0) {
		rs[0], rs[1] = r1, r0
	}
	for _, r := range rs {
		grp := ix.byVer[ix.verOff[r.writer]:ix.verOff[r.writer+1]]
		for _, u := range grp {
			if u.key == r.key && u.writes() && u.reader() != s {
				out = append(out, rwArc{u.reader(), r.key})
			}
		}
	}
	return out
}

// sessionSuccessors is each transaction's so arc target, or -1: fastArcs'
// next, which a history with DIVERGENCE does not have.
func (ix *indexed) sessionSuccessors() []int32 {
	a := ix.fastArcs()
	if a.next == nil {
		a.next = ix.sessionNext()
	}
	return a.next
}

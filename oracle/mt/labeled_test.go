package mt

import "github.com/txlab/txlab/depgraph"

// The labeled dependency graphs, which define the cycle test's arcs and
// the witnesses (TestCycleTestAgreesWithLabeledGraph,
// TestWitnessGraphsAgree): Check itself searches the unlabeled graph
// (witness.go), which has the same arcs in the same order.

// build makes the optimized dependency graph Ĝ of §IV-C: so, wr, ww from
// wr, and rw from wr and ww, without the transitive closure of ww.
func (ix *indexed) build() *depgraph.Graph {
	rs := ix.versions()
	edges := make([]depgraph.Edge, 0, len(rs)*3+len(ix.h.Txns))
	ix.sessionOrder(func(p, i int32) {
		edges = append(edges, depgraph.Edge{From: p, To: i, Kind: depgraph.SO, Aux: -1})
	})
	for _, r := range rs {
		edges = append(edges, depgraph.Edge{From: r.writer, To: r.reader(), Kind: depgraph.WR, Key: r.key, Aux: -1})
		if r.writes() {
			edges = append(edges, depgraph.Edge{From: r.writer, To: r.reader(), Kind: depgraph.WW, Key: r.key, Aux: -1})
		}
	}
	ix.antiDeps(func(from, to int32, key int64) {
		edges = append(edges, depgraph.Edge{From: from, To: to, Kind: depgraph.RW, Key: key, Aux: -1})
	})
	return depgraph.Build(len(ix.h.Txns), edges)
}

// compose builds SI's graph G' = (so ∪ wr ∪ ww) ; rw? (Definition 6). A
// composed edge a→c keeps the first edge's kind and key and stores the rw
// edge's index in Aux, so witness cycles can be expanded back.
func (ix *indexed) compose(g *depgraph.Graph) *depgraph.Graph {
	edges := make([]depgraph.Edge, 0, len(g.Edges))
	for i := range g.Edges {
		e := g.Edges[i]
		if e.Kind == depgraph.RW {
			continue
		}
		edges = append(edges, e)
		for _, ri := range g.Out(e.To) {
			if r := g.Edges[ri]; r.Kind == depgraph.RW {
				edges = append(edges, depgraph.Edge{From: e.From, To: r.To, Kind: e.Kind, Key: e.Key, Aux: ri})
			}
		}
	}
	return depgraph.Build(g.N, edges)
}

// timeNode marks a real-time edge into or out of the time chain.
const timeNode = -2

// withRealTime adds real-time order through a chain of time nodes (see
// realTime) to g.
func (ix *indexed) withRealTime(g *depgraph.Graph) *depgraph.Graph {
	m, rt := ix.realTime()
	edges := make([]depgraph.Edge, len(g.Edges), len(g.Edges)+len(rt))
	copy(edges, g.Edges)
	for _, a := range rt {
		edges = append(edges, depgraph.Edge{From: a.From, To: a.To, Kind: depgraph.RT, Aux: timeNode})
	}
	return depgraph.Build(g.N+m, edges)
}

// realTime returns the real-time arcs through a chain of m time nodes:
// node n+i stands for the i-th smallest end time; T → node(rank of T's
// end); node i → node i+1; node j → S for the largest end j before S's
// start. Then T reaches S through the chain iff T ended before S started,
// with O(n) edges instead of O(n²). Transactions with an unknown end have
// no outgoing real-time edges (they may have ended at any time).
func (ix *indexed) realTime() (m int, arcs []depgraph.Arc) {
	ends := ix.sortedEnds()
	arcs = make([]depgraph.Arc, 0, 3*len(ends))
	ix.realTimeArcs(ends, ix.latestEnds(ends), func(from, to int32) { arcs = append(arcs, depgraph.Arc{From: from, To: to}) })
	return len(ends), arcs
}

// cycles reports a witness for every cyclic component of search, given
// its components (from the unlabeled graph, which finds the same ones in
// the same order). For SI, search is the composed graph G' and g the one
// its witness cycles are expanded through; otherwise g is nil.
func (ix *indexed) cycles(res *Result, sccs [][]int32, comp []int32, search, g *depgraph.Graph) {
	composed := g != nil
	if !composed {
		g = search
	}
	for _, scc := range sccs {
		if len(res.Anomalies) >= maxAnomalies {
			return
		}
		cyc := search.ShortestCycle(scc, comp, 8, nil)
		steps := ix.expand(search, g, composed, cyc)
		res.Anomalies = append(res.Anomalies, ix.explain(steps))
	}
}

// expand turns a cycle of search's edges into steps, a composed edge
// into its two, the time chain collapsed.
func (ix *indexed) expand(search, g *depgraph.Graph, composed bool, cyc []int32) []step {
	var out []step
	for _, ei := range cyc {
		e := search.Edges[ei]
		if composed && e.Aux >= 0 {
			r := g.Edges[e.Aux]
			out = append(out, step{e.From, r.From, e.Kind, e.Key}, step{r.From, r.To, depgraph.RW, r.Key})
			continue
		}
		out = append(out, step{e.From, e.To, e.Kind, e.Key})
	}
	return ix.collapse(out)
}

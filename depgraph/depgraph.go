// Package depgraph is a dependency graph over transactions: nodes are dense
// transaction indices, edges are typed ww/wr/rw/so/rt dependencies. It finds
// strongly connected components with an iterative Tarjan (no recursion, so
// million-node histories do not grow the goroutine stack), extracts a
// shortest witness cycle inside a component by BFS, and names cycles with
// Adya/Elle anomaly classes.
//
// The graph is stored CSR-style (one offsets slice, one edge-index slice)
// because checkers build it once and walk it once: slices beat maps by an
// order of magnitude at a million transactions.
package depgraph

import "strings"

// Kind is a dependency kind.
type Kind uint8

// Dependency kinds.
const (
	WW Kind = iota // write-write: To overwrote From's version
	WR             // write-read: To read From's version
	RW             // read-write (anti-dependency): To overwrote the version From read
	SO             // session order
	RT             // real-time order: From ended before To started
)

var kindNames = [...]string{WW: "ww", WR: "wr", RW: "rw", SO: "so", RT: "rt"}

// String returns ww, wr, rw, so or rt.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// MarshalText writes the kind by name ("rw", not 2) in JSON reports.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Edge is one dependency. Key is the object the dependency is about (for
// ww/wr/rw). Aux is free for the caller, e.g. the middle node of an edge
// composed from two (SI's (so∪wr∪ww);rw?), or -1.
type Edge struct {
	From, To int32
	Kind     Kind
	Key      int64
	Aux      int32
}

// Graph is an immutable dependency graph in CSR form.
type Graph struct {
	N     int
	Edges []Edge
	off   []int32 // off[v]..off[v+1] index into out
	out   []int32 // edge indices grouped by From
}

// Build makes a graph with n nodes from edges (which it keeps; do not modify
// them afterwards). Counting sort by From: O(n + m).
func Build(n int, edges []Edge) *Graph {
	g := &Graph{N: n, Edges: edges, off: make([]int32, n+1), out: make([]int32, len(edges))}
	for i := range edges {
		g.off[edges[i].From+1]++
	}
	for v := 0; v < n; v++ {
		g.off[v+1] += g.off[v]
	}
	pos := make([]int32, n)
	copy(pos, g.off[:n])
	for i := range edges {
		f := edges[i].From
		g.out[pos[f]] = int32(i)
		pos[f]++
	}
	return g
}

// Out returns the indices (into Edges) of v's outgoing edges.
func (g *Graph) Out(v int32) []int32 { return g.out[g.off[v]:g.off[v+1]] }

// CyclicSCCs returns the strongly connected components that contain a cycle
// (more than one node, or a self-loop), each as its member nodes, and comp,
// the component id of every node. Iterative Tarjan, O(n + m).
func (g *Graph) CyclicSCCs() (sccs [][]int32, comp []int32) {
	// Resolve edge indices to targets once: the DFS then reads one array.
	to := make([]int32, len(g.out))
	for i, e := range g.out {
		to[i] = g.Edges[e].To
	}
	return tarjan(g.N, g.off, to)
}

// ShortestCycle returns a shortest cycle (as edge indices, in order) through
// the component whose members are given, trying BFS from up to tries members
// (tries <= 0: all). comp is from CyclicSCCs. Edges for which skip returns
// true are not used (nil: use all).
func (g *Graph) ShortestCycle(members []int32, comp []int32, tries int, skip func(*Edge) bool) []int32 {
	if len(members) == 0 {
		return nil
	}
	c := comp[members[0]]
	// Sparse BFS state: only touched nodes are reset, so repeated BFS over a
	// small component in a huge graph costs the component, not the graph.
	parent := make(map[int32]int32, len(members))
	var best []int32
	if tries <= 0 || tries > len(members) {
		tries = len(members)
	}
	for t := 0; t < tries; t++ {
		s := members[t]
		clear(parent)
		queue := []int32{s}
		found := int32(-1)
	bfs:
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, ei := range g.Out(v) {
				e := &g.Edges[ei]
				if comp[e.To] != c || (skip != nil && skip(e)) {
					continue
				}
				if e.To == s {
					parent[s] = ei
					found = ei
					break bfs
				}
				if _, seen := parent[e.To]; !seen {
					parent[e.To] = ei
					queue = append(queue, e.To)
				}
			}
		}
		if found < 0 {
			continue
		}
		var cyc []int32
		for ei := found; ; {
			cyc = append(cyc, ei)
			from := g.Edges[ei].From
			if from == s {
				break
			}
			ei = parent[from]
		}
		for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
			cyc[i], cyc[j] = cyc[j], cyc[i]
		}
		if best == nil || len(cyc) < len(best) {
			best = cyc
		}
		if len(best) <= 2 {
			break
		}
	}
	return best
}

// Classify names a cycle given as its edge kinds in order, with the
// Adya/Elle classes: G0 (ww only), G1c (ww/wr, at least one wr), G-single
// (exactly one rw), G-nonadjacent (several rw, no two consecutive, counting
// around the cycle), G2-item (two consecutive rw). A cycle that needs a
// session-order or real-time edge gets Elle's -process or -realtime suffix
// (realtime wins: real-time order includes session order).
func Classify(kinds []Kind) string {
	var rw, wr int
	var so, rt bool
	adjacent := false
	for i, k := range kinds {
		switch k {
		case RW:
			rw++
			if kinds[(i+1)%len(kinds)] == RW {
				adjacent = true
			}
		case WR:
			wr++
		case SO:
			so = true
		case RT:
			rt = true
		}
	}
	var name string
	switch {
	case rw == 0 && wr == 0 && !so && !rt:
		name = "G0"
	case rw == 0:
		name = "G1c"
	case rw == 1:
		name = "G-single"
	case adjacent:
		name = "G2-item"
	default:
		name = "G-nonadjacent"
	}
	switch {
	case rt:
		name += "-realtime"
	case so:
		name += "-process"
	}
	return name
}

// Describe renders edge kinds like "ww → rw → wr" for messages.
func Describe(kinds []Kind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = k.String()
	}
	return strings.Join(s, " → ")
}

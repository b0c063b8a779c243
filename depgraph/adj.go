package depgraph

// Arc is an unlabeled edge, for graphs that only answer reachability.
type Arc struct{ From, To int32 }

// Adj is a graph in CSR form without edge labels. Checkers whose histories
// are usually valid test for cycles on an Adj first (8 bytes per arc while
// building, 4 after, instead of an Edge's 32) and build the labeled Graph
// only to extract a witness once a cycle is known to exist.
type Adj struct {
	N   int
	Off []int32 // Off[v]..Off[v+1] index into To
	To  []int32 // targets grouped by source, in the order the arcs were given
}

// BuildAdj makes an Adj with n nodes. A counting sort by From keeps each
// node's arcs in input order, so an Adj built from the arcs of a Graph's
// edges (in the same order) is traversed exactly like that Graph.
func BuildAdj(n int, arcs []Arc) *Adj {
	a := &Adj{N: n, Off: make([]int32, n+1), To: make([]int32, len(arcs))}
	for _, e := range arcs {
		a.Off[e.From+1]++
	}
	for v := 0; v < n; v++ {
		a.Off[v+1] += a.Off[v]
	}
	pos := make([]int32, n)
	copy(pos, a.Off[:n])
	for _, e := range arcs {
		a.To[pos[e.From]] = e.To
		pos[e.From]++
	}
	return a
}

// BuildAdjFunc is BuildAdj for arcs a function emits: emit is called twice
// and must give the same arcs in the same order each time (once to count
// them, once to place them), so no list of arcs is ever held — 8 bytes per
// arc less for a checker whose arcs are cheap to generate again.
func BuildAdjFunc(n int, emit func(add func(from, to int32))) *Adj {
	// off[v+2] counts v's arcs; after the prefix sums off[v+1] is v's start,
	// used as the cursor while placing, and ends as v's end = v+1's start.
	off := make([]int32, n+2)
	emit(func(from, _ int32) { off[from+2]++ })
	for v := 2; v < n+2; v++ {
		off[v] += off[v-1]
	}
	to := make([]int32, off[n+1])
	emit(func(from, t int32) {
		to[off[from+1]] = t
		off[from+1]++
	})
	return &Adj{N: n, Off: off[:n+1], To: to}
}

// Out returns v's successors.
func (a *Adj) Out(v int32) []int32 { return a.To[a.Off[v]:a.Off[v+1]] }

// CyclicSCCs is Graph.CyclicSCCs for an Adj. Repeated arcs change nothing
// (not even the order of the components), so an Adj may leave out arcs that
// duplicate an earlier arc of the same source, e.g. a ww beside its wr.
func (a *Adj) CyclicSCCs() (sccs [][]int32, comp []int32) {
	return tarjan(a.N, a.Off, a.To)
}

// tarjan is an iterative Tarjan over a CSR graph: off[v]..off[v+1] index
// into to. It returns the components with a cycle (more than one node, or a
// self-loop) and every node's component id, O(n + m).
//
// Its state is one int32 per node: num[v] is 0 while v is unvisited, its
// DFS number while it is on the stack, and -(component+1) once its
// component is found (turned into comp in place at the end). A node's low
// link is needed only while it is on the call stack, so it lives in its
// frame. One array instead of three (DFS number, low link, component) is 8
// bytes a node less, and each arc's look-up touches one cache line, not
// two.
func tarjan(n int, off, to []int32) (sccs [][]int32, comp []int32) {
	num := make([]int32, n)
	var stack []int32
	// The active node's cursor, end and low link are locals while its arcs
	// are scanned; its frame is saved only when the search descends. A
	// self-loop is noted as it is scanned: by the time a node is done its
	// arcs may have left the cache.
	type frame struct {
		v, i, low int32
		self      bool
	}
	var call []frame
	next := int32(1)
	ncomp := int32(0)
	for root := range int32(n) {
		if num[root] != 0 {
			continue
		}
		v, i, end, low, self := root, off[root], off[root+1], next, false
		num[v] = next
		next++
		stack = append(stack, v)
		for {
			descended := false
			for i < end {
				w := to[i]
				i++
				x := num[w]
				if x == 0 {
					call = append(call, frame{v, i, low, self})
					v, i, end, low, self = w, off[w], off[w+1], next, false
					num[w] = next
					next++
					stack = append(stack, w)
					descended = true
					break
				}
				if x > 0 && x < low {
					low = x // w is on the stack
				}
				self = self || w == v
			}
			if descended {
				continue
			}
			// v is done.
			if low == num[v] {
				// v is a root: pop its component.
				k := len(stack) - 1
				for stack[k] != v {
					k--
				}
				members := stack[k:]
				for _, w := range members {
					num[w] = -ncomp - 1
				}
				if len(members) > 1 || self {
					sccs = append(sccs, append([]int32(nil), members...))
				}
				stack = stack[:k]
				ncomp++
			}
			if len(call) == 0 {
				break
			}
			f := call[len(call)-1]
			call = call[:len(call)-1]
			v, i, end, self = f.v, f.i, off[f.v+1], f.self
			low = min(f.low, low)
		}
	}
	for v, x := range num {
		num[v] = -x - 1
	}
	return sccs, num
}

package infer

import (
	"slices"
	"strings"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
)

// Cycle is one witness cycle: edges in order, each To the next one's From.
type Cycle struct {
	// Adya is the Elle/Adya class (depgraph.Classify), e.g. G-single,
	// G2-item, G1c-process.
	Adya string
	// Class is Adya refined as IsoRel does (lost-update, read-write-skew,
	// write-skew) or Adya itself.
	Class string
	Edges []Edge
}

// Excuse is a cycle not reported because of IsoRel's SELECT FOR UPDATE
// exception (§3.4): T rw(r)→ U by a plain SELECT in T, and U wr(r)→ T seen
// by a locking read in T, which reads the latest version by design. The
// exception covers a snapshot older than the locking read, not a plain
// read that goes back to an older version of r after T's locking read saw
// a newer one (MDEV-26642: a no-op UPDATE matched the row at U's version,
// the SELECT after it still sees the version before U): such a pair is
// not excused.
type Excuse struct {
	RW, WR Edge
}

// seedCap bounds the per-class BFS seeds per component: a witness is wanted,
// not all of them, and a huge component must not cost |E|·(|V|+|E|).
const seedCap = 64

// graph is the dependency graph over transactions that did not abort.
type graph struct {
	g     *depgraph.Graph
	comp  []int32
	sccs  [][]int32
	ids   []int64
	edges []Edge // depgraph.Edge.Key indexes this
	// BFS state reused by through: a component is searched up to 5×seedCap
	// times, and a map per search was most of the checking time.
	parent []int32  // by node: the edge that reached it
	seen   []uint32 // by node: the search stamp that reached it
	stamp  uint32
	queue  []int32
}

// buildGraph keeps every edge between transactions that did not fail,
// except the wr edges excused by the SELECT FOR UPDATE exception.
func (d *Deps) buildGraph() (*graph, []Excuse) {
	failed := make(map[int64]bool)
	for i := range d.h.Txns {
		if d.h.Txns[i].Status == history.Fail {
			failed[d.h.Txns[i].ID] = true
		}
	}
	var excuses []Excuse
	excused := make(map[int]bool)
	var back map[txnRow]bool
	for i := range d.Edges {
		e := &d.Edges[i]
		if e.Kind != depgraph.WR || !e.Locking {
			continue
		}
		if back == nil {
			back = readsBack(d.h)
		}
		if back[txnRow{e.To, e.Row}] {
			continue
		}
		if d.index == nil {
			// Built only when a locking read needs it: most histories have none.
			d.index = make(map[key]int, len(d.Edges))
			for i := range d.Edges {
				d.index[d.Edges[i].key()] = i
			}
		}
		// The plain read may have missed the row (a predicate rw) as well
		// as read an older version of it.
		for _, pred := range []bool{false, true} {
			if j, ok := d.index[key{e.To, e.From, depgraph.RW, e.Row, pred}]; ok && !d.Edges[j].Locking {
				excused[i] = true
				excuses = append(excuses, Excuse{RW: d.Edges[j], WR: *e})
			}
		}
	}
	gr := &graph{}
	dense := make(map[int64]int32)
	node := func(id int64) int32 {
		if v, ok := dense[id]; ok {
			return v
		}
		v := int32(len(gr.ids))
		dense[id] = v
		gr.ids = append(gr.ids, id)
		return v
	}
	var es []depgraph.Edge
	for i := range d.Edges {
		e := &d.Edges[i]
		if excused[i] || failed[e.From] || failed[e.To] {
			continue
		}
		es = append(es, depgraph.Edge{From: node(e.From), To: node(e.To), Kind: e.Kind, Key: int64(len(gr.edges)), Aux: -1})
		gr.edges = append(gr.edges, *e)
	}
	gr.g = depgraph.Build(len(gr.ids), es)
	gr.sccs, gr.comp = gr.g.CyclicSCCs()
	return gr, excuses
}

// through returns a shortest cycle that uses edge seed (index into g.Edges)
// and otherwise only edges allow accepts, inside seed's component: BFS from
// seed.To back to seed.From.
func (gr *graph) through(seed int32, allow func(*depgraph.Edge) bool) []int32 {
	g := gr.g
	s := &g.Edges[seed]
	c := gr.comp[s.From]
	if gr.comp[s.To] != c {
		return nil
	}
	if s.To == s.From {
		return []int32{seed}
	}
	if gr.seen == nil {
		gr.seen = make([]uint32, len(gr.ids))
		gr.parent = make([]int32, len(gr.ids))
	}
	gr.stamp++
	gr.seen[s.To] = gr.stamp
	queue := append(gr.queue[:0], s.To)
	defer func() { gr.queue = queue }()
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, ei := range g.Out(v) {
			e := &g.Edges[ei]
			if gr.comp[e.To] != c || !allow(e) {
				continue
			}
			if gr.seen[e.To] == gr.stamp {
				continue
			}
			gr.seen[e.To] = gr.stamp
			gr.parent[e.To] = ei
			if e.To == s.From {
				path := []int32{seed}
				for x := e.To; x != s.To; x = g.Edges[gr.parent[x]].From {
					path = append(path, gr.parent[x])
				}
				// path is seed followed by the BFS path reversed.
				slices.Reverse(path[1:])
				return path
			}
			queue = append(queue, e.To)
		}
	}
	return nil
}

// cycles finds, per cyclic component, the shortest witness per class.
func (gr *graph) cycles(intermediate map[key]bool) []Cycle {
	var out []Cycle
	g := gr.g
	kindIs := func(ks ...depgraph.Kind) func(*depgraph.Edge) bool {
		return func(e *depgraph.Edge) bool { return slices.Contains(ks, e.Kind) }
	}
	all := func(*depgraph.Edge) bool { return true }
	for _, members := range gr.sccs {
		c := gr.comp[members[0]]
		var byKind [5][]int32
		for _, v := range members {
			for _, ei := range g.Out(v) {
				e := &g.Edges[ei]
				if gr.comp[e.To] == c && len(byKind[e.Kind]) < seedCap {
					byKind[e.Kind] = append(byKind[e.Kind], ei)
				}
			}
		}
		best := make(map[string][]int32)
		consider := func(cyc []int32, want func(string) bool) {
			if cyc == nil {
				return
			}
			kinds := make([]depgraph.Kind, len(cyc))
			for i, ei := range cyc {
				kinds[i] = g.Edges[ei].Kind
			}
			adya := depgraph.Classify(kinds)
			if !want(adya) {
				return
			}
			adya = gr.predicateClass(adya, cyc)
			if b, ok := best[adya]; !ok || len(cyc) < len(b) {
				best[adya] = cyc
			}
		}
		any := func(string) bool { return true }
		// G0: ww only.
		for _, ei := range byKind[depgraph.WW] {
			consider(gr.through(ei, kindIs(depgraph.WW)), any)
		}
		// G1c: ww/wr (and so), through a wr.
		for _, ei := range byKind[depgraph.WR] {
			consider(gr.through(ei, kindIs(depgraph.WW, depgraph.WR, depgraph.SO)), any)
		}
		// G-single: exactly one rw.
		for _, ei := range byKind[depgraph.RW] {
			consider(gr.through(ei, func(e *depgraph.Edge) bool { return e.Kind != depgraph.RW }), any)
		}
		// G2: through an rw, anything else; only cycles with several rw
		// count here (a single-rw one was found above).
		for _, ei := range byKind[depgraph.RW] {
			consider(gr.through(ei, all), func(a string) bool { return base(a) == "G2-item" || base(a) == "G-nonadjacent" })
		}
		// Process variants of G0 (ww + so).
		for _, ei := range byKind[depgraph.SO] {
			consider(gr.through(ei, kindIs(depgraph.WW, depgraph.SO)), any)
		}
		names := make([]string, 0, len(best))
		for n := range best {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			cyc := Cycle{Adya: n}
			for _, ei := range best[n] {
				cyc.Edges = append(cyc.Edges, gr.edges[g.Edges[ei].Key])
			}
			if isIntermediate(cyc.Edges, intermediate) {
				continue // reported as G1b
			}
			cyc.Class = refine(cyc)
			out = append(out, cyc)
		}
	}
	return out
}

// predicateClass renames the class of a cycle whose anti-dependencies
// are all predicate ones (semantics.G2Predicate): G-single →
// G-single-predicate, G-nonadjacent → G-nonadjacent-predicate, G2-item →
// G2-predicate, Elle's suffix kept last. A cycle with an item
// anti-dependency keeps its class (Adya's G2-item needs one).
func (gr *graph) predicateClass(class string, cyc []int32) string {
	any := false
	for _, ei := range cyc {
		e := &gr.edges[gr.g.Edges[ei].Key]
		if e.Kind != depgraph.RW {
			continue
		}
		if e.Predicate == "" {
			return class
		}
		any = true
	}
	if !any {
		return class
	}
	b := base(class)
	suffix := class[len(b):]
	if b == "G2-item" {
		return "G2-predicate" + suffix
	}
	return b + "-predicate" + suffix
}

// isIntermediate matches the two-edge cycle an intermediate read makes:
// W wr(r)→ R (R read W's first write of r) and R rw(r)→ W (W wrote r again).
func isIntermediate(es []Edge, intermediate map[key]bool) bool {
	if len(es) != 2 {
		return false
	}
	for i, e := range es {
		o := es[1-i]
		if e.Kind == depgraph.WR && o.Kind == depgraph.RW && e.Row == o.Row && intermediate[key{e.From, e.To, depgraph.WR, e.Row, false}] {
			return true
		}
	}
	return false
}

// refine names a cycle as IsoRel does (§2.4): only rw edges → write-skew;
// rw and ww only, all on one row → lost-update, on several rows →
// read-write-skew. Cycles needing wr or so keep their Adya name, and so
// does a cycle of ww edges and several rw edges: lost update and
// read-write skew are G-single (one anti-dependency), which snapshot
// isolation forbids, while T1 -rw→ T2 -ww→ T3 -rw→ T1 is G2-item, which
// it permits.
func refine(c Cycle) string {
	var rw, ww, other int
	rows := make(map[string]bool)
	for _, e := range c.Edges {
		if e.Predicate != "" {
			return c.Adya // IsoRel's names are for item cycles
		}
		switch e.Kind {
		case depgraph.RW:
			rw++
		case depgraph.WW:
			ww++
		default:
			other++
		}
		rows[e.Row] = true
	}
	switch {
	case other > 0 || rw == 0:
		return c.Adya
	case ww == 0 && rw >= 2:
		return string(semantics.WriteSkew)
	case ww > 0 && rw > 1:
		return c.Adya
	case ww > 0 && len(rows) == 1:
		return string(semantics.LostUpdate)
	case ww > 0:
		return string(semantics.ReadWriteSkew)
	}
	return c.Adya
}

// base strips Elle's -process / -realtime suffix.
func base(class string) string {
	for _, s := range []string{"-process", "-realtime"} {
		if len(class) > len(s) && class[len(class)-len(s):] == s {
			return class[:len(class)-len(s)]
		}
	}
	return class
}

// txnRow names a row as one transaction saw it.
type txnRow struct {
	txn int64
	row string
}

// rowTables maps the rows whose table the history says (those in a
// predicate read's view or in the final state) to it.
func rowTables(h *history.History) map[string]string {
	out := map[string]string{}
	for i := range h.Txns {
		for _, s := range h.Txns[i].Stmts {
			if s.Table == "" {
				continue
			}
			for _, vs := range [][]history.Version{s.Seen, s.Reads} {
				for _, v := range vs {
					out[v.Row] = s.Table
				}
			}
		}
	}
	return out
}

// readsBack finds the rows a transaction read plainly at a version older
// than one its own locking read of the row had seen before: the wList
// read later is a proper prefix of the one the locking read returned, or
// a predicate read's view no longer holds the row at all (MDEV-26671: a
// row another transaction inserted, matched by a no-op UPDATE, then
// missing from the next SELECT).
func readsBack(h *history.History) map[txnRow]bool {
	out := map[txnRow]bool{}
	tableOf := rowTables(h)
	for i := range h.Txns {
		t := &h.Txns[i]
		locked := map[string]string{} // row → the longest wList a locking read saw
		for _, s := range t.Stmts {
			if s.Predicate != "" && !s.Locking && s.Error == "" {
				in := make(map[string]bool, len(s.Seen))
				for _, v := range s.Seen {
					in[v.Row] = true
				}
				for r := range locked {
					if !in[r] && tableOf[r] == s.Table {
						out[txnRow{t.ID, r}] = true
					}
				}
			}
			for _, v := range s.Deleted {
				delete(locked, v.Row) // gone by its own hand: no read goes back
			}
			for _, v := range s.Reads {
				if s.Locking {
					if len(v.WList) > len(locked[v.Row]) {
						locked[v.Row] = v.WList
					}
					continue
				}
				if l, ok := locked[v.Row]; ok && strings.HasPrefix(l, v.WList+",") {
					out[txnRow{t.ID, v.Row}] = true
				}
			}
		}
	}
	return out
}

// Package infer turns a recorded IsoRel history (SQL statements with the
// rowId/wList of every row they read or deleted) into transaction
// dependencies — so, wr, ww, rw, following Algorithm 1 of the IsoRel paper
// including its DELETE/REPLACE pre-read rules — finds the anomaly cycles in
// the resulting graph, names them (Adya/Elle classes refined as IsoRel does:
// lost-update, read-write-skew, write-skew) and judges each one against what
// the DBMS documents for the level (package semantics): bug or allowed.
//
// Infer is near-linear: every observed wList of a row is inserted into a
// per-row trie of writer sequences, so "wList_j starts with wList_i" becomes
// "node j lies below node i" and the next writer after a read is a child of
// the read's node. InferPairwise is the paper's all-pairs loop, kept only as
// the reference the tests compare Infer against.
package infer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
)

// Edge is one inferred dependency between two transactions (by id, Tn = n).
type Edge struct {
	From int64         `json:"from"`
	To   int64         `json:"to"`
	Kind depgraph.Kind `json:"kind"`
	// Row is the rowId the dependency is about ("" for so).
	Row string `json:"row,omitempty"`
	// FromStmt and ToStmt index the statements (in Txn.Stmts of From and To)
	// whose observation produced the edge, -1 when no statement of that side
	// is known: a wList names the writer transaction, not its statement.
	FromStmt int `json:"from_stmt"`
	ToStmt   int `json:"to_stmt"`
	// WList is the version that evidences the edge: the version read (wr,
	// rw), or the longer version whose order shows the overwrite (ww).
	WList WList `json:"wlist"`
	// Locking is true when every read that produced the edge was a locking
	// read (SELECT … FOR UPDATE / FOR SHARE); the SELECT FOR UPDATE exception
	// of IsoRel §3.4 needs it.
	Locking bool `json:"locking,omitempty"`
	// Predicate, on an rw edge, names the predicate read (history
	// Stmt.Predicate) the writer overwrote by changing whether Row
	// matches it; WList is then the version the read's view held, empty
	// when the row was not in it. "" for item dependencies.
	Predicate string `json:"predicate,omitempty"`
}

// key identifies an edge for set comparison; statements are only evidence.
type key struct {
	from, to int64
	kind     depgraph.Kind
	row      string
	pred     bool
}

func (e *Edge) key() key { return key{e.From, e.To, e.Kind, e.Row, e.Predicate != ""} }

// Read is one observation of a row version by a statement.
type Read struct {
	Txn   int64
	Stmt  int
	Row   string
	WList WList
	// Writer is the transaction whose write makes the read an anomaly: the
	// aborted writer (G1a) or the writer that wrote the row again (G1b).
	Writer int64
}

// Fork is an inconsistent row history: two observed wLists of the same row
// that are not prefixes of one another, so the row has no single version
// order. Both branches start with a transaction that did not abort.
type Fork struct {
	Row    string
	A, B   string // the two wLists
	AStmt  Read   // an observation of A
	BStmt  Read   // an observation of B
	Base   string // their common prefix
	Reason string
}

// Deps is what Infer found.
type Deps struct {
	// Edges are deduplicated by (From, To, Kind, Row), in a deterministic
	// order; the first observation (history order) provides the evidence.
	Edges []Edge
	// AbortedReads are reads of a version a failed transaction wrote (G1a).
	AbortedReads []Read
	// IntermediateReads are reads of a version whose last writer wrote the
	// row again later: its wList is a proper prefix of an observed wList that
	// continues with the same writer, e.g. T0,T3 read while T0,T3,T3 exists
	// (G1b).
	IntermediateReads []Read
	// Forks are rows whose observed wLists are not prefixes of one another.
	Forks []Fork
	// Unknown lists transaction ids named in wLists but absent from the
	// history (other than T0); they are treated as committed.
	Unknown []int64
	// Skipped counts aggregate statements excluded from inference.
	Skipped int

	h     *history.History
	byID  map[int64]*history.Txn
	index map[key]int
	// names are the rows' names (RowName), gathered on first use: only
	// findings need them, and a stress history holds many.
	namesOnce sync.Once
	names     map[string]string
}

// RowName is what a person calls row id: its table and key values as the
// history names it ("a(id=1)"), with the rowId added when another row of
// the history has the same name ("a(id=1) r7", a key deleted and inserted
// again); the rowId alone when the history does not name it.
func (d *Deps) RowName(id string) string {
	d.namesOnce.Do(func() {
		if d.h == nil {
			return
		}
		d.names = map[string]string{}
		rows := map[string]map[string]bool{}
		for i := range d.h.Txns {
			for j := range d.h.Txns[i].Stmts {
				for r, n := range d.h.Txns[i].Stmts[j].Names {
					d.names[r] = n
					if rows[n] == nil {
						rows[n] = map[string]bool{}
					}
					rows[n][r] = true
				}
			}
		}
		for r, n := range d.names {
			if len(rows[n]) > 1 {
				d.names[r] = n + " " + r
			}
		}
	})
	if n := d.names[id]; n != "" {
		return n
	}
	return id
}

// Txn returns the transaction with the given id, nil if the history lacks it.
func (d *Deps) Txn(id int64) *history.Txn { return d.byID[id] }

// History returns the history the dependencies were inferred from.
func (d *Deps) History() *history.History { return d.h }

// WList is a row version: its writer transactions, oldest first, shown as
// "T0,T3". The text is made only when shown (String, MarshalText): most of a
// large history's edges never are, and rendering each one cost more than
// inferring it.
type WList struct {
	p  *prepared
	wl []int32
}

func (w WList) String() string {
	if w.p == nil {
		return ""
	}
	return w.p.wlist(w.wl)
}

// MarshalText renders the version as in a history file ("T0,T3").
func (w WList) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// obsRow is one row of one query result: the rowId and the wList, both
// interned (wl indexes transaction ids through prepared.ids).
type obsRow struct {
	row int32
	wl  []int32
}

// result is one query result: the rows a statement read (del false) or the
// rows its DELETE/REPLACE pre-read locked before removing them (del true).
type result struct {
	txn  int32
	stmt int
	del  bool
	lock bool
	rows []obsRow
}

// prepared is the history reduced to what both inference algorithms read.
type prepared struct {
	h       *history.History
	ids     []int64 // interned transaction ids
	idOf    map[int64]int32
	dense   []int32  // idOf for ids below len(dense), -1 when absent: most ids are small
	rows    []string // interned rowIds
	rowOf   map[string]int32
	failed  []bool // by interned txn
	results []result
	// observations counts rows over all results; observed sums their wList
	// lengths (sizing hints).
	observations, observed int
	skipped                int
	unknown                []int64
}

// lookup finds the interned index of a transaction id.
func (p *prepared) lookup(id int64) (int32, bool) {
	if id >= 0 && id < int64(len(p.dense)) {
		i := p.dense[id]
		return i, i >= 0
	}
	i, ok := p.idOf[id]
	return i, ok
}

// txn interns a transaction id.
func (p *prepared) txn(id int64) int32 {
	if i, ok := p.lookup(id); ok {
		return i
	}
	i := int32(len(p.ids))
	p.ids = append(p.ids, id)
	if id >= 0 && id < int64(len(p.dense)) {
		p.dense[id] = i
	} else {
		p.idOf[id] = i
	}
	p.failed = append(p.failed, false)
	return i
}

// interned returns the interned index of a transaction id already seen.
func (p *prepared) interned(id int64) int32 {
	i, _ := p.lookup(id)
	return i
}

func (p *prepared) row(r string) int32 {
	if i, ok := p.rowOf[r]; ok {
		return i
	}
	i := int32(len(p.rows))
	p.rows = append(p.rows, r)
	p.rowOf[r] = i
	return i
}

// prepare interns rowIds and transaction ids and parses every wList once.
// Aggregate statements are excluded (their rows are not table rows); a
// failed statement's deleted rows are excluded (the delete did not happen),
// its reads are kept (a failed SELECT reports none).
func prepare(h *history.History) (*prepared, error) {
	p := &prepared{h: h, idOf: make(map[int64]int32), rowOf: make(map[string]int32)}
	p.dense = make([]int32, 2*len(h.Txns)+64)
	for i := range p.dense {
		p.dense[i] = -1
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		p.failed[p.txn(t.ID)] = t.Status == history.Fail
	}
	known := len(p.ids)
	arena := make([]int32, 0, 1024)
	var ws []int64
	var seenAt, seenIdx []int32 // per row: the result stamp and index it was last seen at
	var stamp int32
	parse := func(vs []history.Version) ([]obsRow, error) {
		rows := make([]obsRow, 0, len(vs))
		for _, v := range vs {
			var err error
			ws, err = history.AppendWList(ws[:0], v.WList)
			if err != nil {
				return nil, fmt.Errorf("row %s: %w", v.Row, err)
			}
			if cap(arena)-len(arena) < len(ws) {
				arena = make([]int32, 0, max(1024, 2*len(ws)))
			}
			start := len(arena)
			for _, w := range ws {
				arena = append(arena, p.txn(w))
			}
			rows = append(rows, obsRow{row: p.row(v.Row), wl: arena[start:len(arena):len(arena)]})
			p.observed += len(ws)
		}
		// A self-join reads a row twice from the same snapshot: the repeat
		// adds nothing. Two different wLists for one row in one result are
		// two versions the statement really saw (InnoDB: an UPDATE of the
		// primary key moves the row, and a snapshot that predates the move
		// shows the old record next to the transaction's own new one), so
		// both stay as observations.
		stamp++
		kept := rows[:0]
		for _, o := range rows {
			for int(o.row) >= len(seenAt) {
				seenAt = append(seenAt, 0)
				seenIdx = append(seenIdx, 0)
			}
			if seenAt[o.row] == stamp && slices.Equal(kept[seenIdx[o.row]].wl, o.wl) {
				continue
			}
			seenAt[o.row], seenIdx[o.row] = stamp, int32(len(kept))
			kept = append(kept, o)
		}
		rows = kept
		p.observations += len(rows)
		return rows, nil
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		ti := p.interned(t.ID)
		for si := range t.Stmts {
			s := &t.Stmts[si]
			if s.Aggregate {
				p.skipped++
				continue
			}
			if len(s.Reads) > 0 {
				rows, err := parse(s.Reads)
				if err != nil {
					return nil, fmt.Errorf("T%d statement %d: %w", t.ID, si+1, err)
				}
				p.results = append(p.results, result{txn: ti, stmt: si, lock: s.Locking, rows: rows})
			}
			if len(s.Deleted) > 0 && s.Error == "" {
				rows, err := parse(s.Deleted)
				if err != nil {
					return nil, fmt.Errorf("T%d statement %d: %w", t.ID, si+1, err)
				}
				p.results = append(p.results, result{txn: ti, stmt: si, del: true, lock: true, rows: rows})
			}
		}
	}
	for _, id := range p.ids[known:] {
		if id != 0 {
			p.unknown = append(p.unknown, id)
		}
	}
	return p, nil
}

func (p *prepared) wlist(wl []int32) string {
	b := make([]byte, 0, 4*len(wl))
	for i, t := range wl {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, 'T')
		b = strconv.AppendInt(b, p.ids[t], 10)
	}
	return string(b)
}

// collector deduplicates edges, keeping the first evidence; Locking is the
// conjunction over all producing reads. It is an open-addressing table on
// interned keys: a history of 100k statements yields about 400k distinct
// edges, and the built-in map with Edge values was most of the inference.
type collector struct {
	p     *prepared
	edges []cedge
	slots []int32 // 1 + index into edges; 0 is empty
	mask  uint64
}

// ckey is key on interned ids.
type ckey struct {
	from, to, row int32
	kind          depgraph.Kind
}

// cedge is an edge as collected: interned ids, evidence as a slice of the
// prepared arena.
type cedge struct {
	k      ckey
	fs, ts int32
	lock   bool
	wl     []int32
}

func newCollector(p *prepared, hint int) *collector {
	n := 1024
	for n < 2*hint {
		n <<= 1
	}
	return &collector{p: p, edges: make([]cedge, 0, hint), slots: make([]int32, n), mask: uint64(n - 1)}
}

func (k ckey) hash() uint64 {
	h := (uint64(uint32(k.from)) | uint64(uint32(k.to))<<32) * 0x9e3779b97f4a7c15
	h ^= (uint64(uint32(k.row)) | uint64(k.kind)<<32) * 0xc2b2ae3d27d4eb4f
	return h ^ h>>31
}

func (c *collector) add(from, to int32, k depgraph.Kind, row int32, fs, ts int, wl []int32, locking bool) {
	kk := ckey{from, to, row, k}
	for i := kk.hash() & c.mask; ; i = (i + 1) & c.mask {
		x := c.slots[i]
		if x == 0 {
			c.slots[i] = int32(len(c.edges) + 1)
			break
		}
		if e := &c.edges[x-1]; e.k == kk {
			if !locking {
				e.lock = false
			}
			return
		}
	}
	c.edges = append(c.edges, cedge{k: kk, fs: int32(fs), ts: int32(ts), lock: locking, wl: wl})
	if 2*len(c.edges) > len(c.slots) {
		c.grow()
	}
}

func (c *collector) grow() {
	c.slots = make([]int32, 2*len(c.slots))
	c.mask = uint64(len(c.slots) - 1)
	for n := range c.edges {
		i := c.edges[n].k.hash() & c.mask
		for c.slots[i] != 0 {
			i = (i + 1) & c.mask
		}
		c.slots[i] = int32(n + 1)
	}
}

// sessionOrder adds so edges between consecutive transactions of a session
// (history order), skipping the init transaction and failed transactions:
// the graph is over transactions that may have committed.
func (c *collector) sessionOrder() {
	last := make(map[int]int32)
	for i := range c.p.h.Txns {
		t := &c.p.h.Txns[i]
		if t.Init || t.Status == history.Fail {
			continue
		}
		ti := c.p.interned(t.ID)
		if prev, ok := last[t.Session]; ok {
			c.add(prev, ti, depgraph.SO, -1, -1, -1, nil, false)
		}
		last[t.Session] = ti
	}
}

func newDeps(p *prepared, c *collector) *Deps {
	d := &Deps{h: p.h, byID: make(map[int64]*history.Txn, len(p.h.Txns)), Skipped: p.skipped, Unknown: p.unknown}
	for i := range p.h.Txns {
		d.byID[p.h.Txns[i].ID] = &p.h.Txns[i]
	}
	// A deterministic order — kind, From, To, row — that does not depend on
	// how the edges were found: a counting sort on (kind, From), then the
	// few edges of each bucket by (To, row). Comparison sorts through the
	// interning tables cost more than the inference.
	rank := make([]uint32, len(p.ids))
	byID := make([]int32, len(p.ids))
	for i := range byID {
		byID[i] = int32(i)
	}
	slices.SortFunc(byID, func(a, b int32) int { return cmp.Compare(p.ids[a], p.ids[b]) })
	for r, i := range byID {
		rank[i] = uint32(r)
	}
	bucket := func(k *ckey) int { return int(k.kind)*len(rank) + int(rank[k.from]) }
	start := make([]int32, (int(depgraph.RT)+1)*len(rank)+1)
	for i := range c.edges {
		start[bucket(&c.edges[i].k)+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	type sortKey struct {
		lo uint64 // rank of To, then row
		i  int32
	}
	keys := make([]sortKey, len(c.edges))
	next := slices.Clone(start[:len(start)-1])
	for i := range c.edges {
		k := &c.edges[i].k
		b := bucket(k)
		keys[next[b]] = sortKey{uint64(rank[k.to])<<32 | uint64(uint32(k.row)), int32(i)}
		next[b]++
	}
	for b := 0; b+1 < len(start); b++ {
		if seg := keys[start[b]:start[b+1]]; len(seg) > 1 {
			slices.SortFunc(seg, func(x, y sortKey) int { return cmp.Compare(x.lo, y.lo) })
		}
	}
	d.Edges = make([]Edge, len(keys))
	for i, k := range keys {
		ce := &c.edges[k.i]
		e := &d.Edges[i]
		*e = Edge{From: p.ids[ce.k.from], To: p.ids[ce.k.to], Kind: ce.k.kind, FromStmt: int(ce.fs), ToStmt: int(ce.ts), Locking: ce.lock}
		if ce.k.row >= 0 {
			e.Row = p.rows[ce.k.row]
		}
		if ce.wl != nil {
			e.WList = WList{p, ce.wl}
		}
	}
	return d
}

// node is a trie node: the version of a row whose wList is the path from
// the row's root. Children and the observations at a node are singly linked
// lists (int32 indices, -1 ends) so the trie is a few flat slices.
type node struct {
	txn        int32 // last writer of this version; -1 at the root
	parent     int32
	child, sib int32
	obs        int32 // first observation of exactly this version
	del        int32 // first DELETE/REPLACE pre-read of exactly this version
}

type obsRef struct {
	res  int32 // index into prepared.results
	row  int32 // index into that result's rows
	next int32 // next observation at the same node
}

// Infer derives so, wr, ww and rw edges (IsoRel Algorithm 1) in time linear
// in the total length of the observed wLists (plus the edges it emits).
func Infer(h *history.History) (*Deps, error) {
	return inferContext(context.Background(), h)
}

// inferContext is Infer ending with ctx.
func inferContext(ctx context.Context, h *history.History) (*Deps, error) {
	p, err := prepare(h)
	if err != nil {
		return nil, err
	}
	c := newCollector(p, p.observed)
	c.sessionOrder()

	nodes, obs, at := buildTrie(p, c)
	d := &Deps{}
	readEdges(p, c, d, nodes, obs, at)
	d.Forks = forks(p, nodes, obs)
	out := newDeps(p, c)
	out.AbortedReads, out.IntermediateReads, out.Forks = d.AbortedReads, d.IntermediateReads, d.Forks
	pe, err := predicateEdges(ctx, h)
	if err != nil {
		return nil, err
	}
	out.Edges = append(out.Edges, pe...)
	return out, nil
}

// buildTrie is the trie of the wLists every observation read (a node per
// version), with the ww edges along its edges: the observations of each
// node are in two lists (readers, deleters), and at holds each
// observation's node.
func buildTrie(p *prepared, c *collector) (nodes []node, obs []obsRef, at []int32) {
	nodes = make([]node, 0, len(p.rows)*2)
	roots := make([]int32, len(p.rows))
	for i := range roots {
		roots[i] = int32(len(nodes))
		nodes = append(nodes, node{txn: -1, parent: -1, child: -1, sib: -1, obs: -1, del: -1})
	}
	obs = make([]obsRef, 0, p.observations)
	at = make([]int32, 0, p.observations) // node of each observation, parallel to obs
	for ri := range p.results {
		r := &p.results[ri]
		for oi := range r.rows {
			o := &r.rows[oi]
			cur := roots[o.row]
			for i, t := range o.wl {
				ch := nodes[cur].child
				for ch >= 0 && nodes[ch].txn != t {
					ch = nodes[ch].sib
				}
				if ch < 0 {
					ch = int32(len(nodes))
					nodes = append(nodes, node{txn: t, parent: cur, child: -1, sib: nodes[cur].child, obs: -1, del: -1})
					nodes[cur].child = ch
					// ww: consecutive distinct writers along a trie edge
					// (lines 16–19), found once, when the edge is new.
					if prev := nodes[cur].txn; prev >= 0 && prev != t {
						c.add(prev, t, depgraph.WW, o.row, -1, -1, o.wl[:i+1:i+1], false)
					}
				}
				cur = ch
			}
			// Deleting observations get their own list so the rw loop
			// below visits only deleters, not every reader of the version.
			head := &nodes[cur].obs
			if r.del {
				head = &nodes[cur].del
			}
			obs = append(obs, obsRef{res: int32(ri), row: int32(oi), next: *head})
			*head = int32(len(obs) - 1)
			at = append(at, cur)
		}
	}
	return nodes, obs, at
}

// readEdges adds the edges of each observation (wr, rw, a deleter's ww)
// and records the aborted and intermediate reads in d.
func readEdges(p *prepared, c *collector, d *Deps, nodes []node, obs []obsRef, at []int32) {
	for oi := range obs {
		o := &obs[oi]
		r := &p.results[o.res]
		or := &r.rows[o.row]
		n := at[oi]
		last := nodes[n].txn
		reader := r.txn
		if r.del {
			// lines 11–13: the pre-read of a DELETE/REPLACE: the deleter
			// overwrites the version it locked.
			if reader != last {
				c.add(last, reader, depgraph.WW, or.row, -1, r.stmt, or.wl, false)
			}
			continue
		}
		if reader != last {
			c.add(last, reader, depgraph.WR, or.row, -1, r.stmt, or.wl, r.lock)
		}
		// rw (lines 20–34): every next writer of the version read — the
		// children of its node — and every transaction that deleted exactly
		// this version.
		for ch := nodes[n].child; ch >= 0; ch = nodes[ch].sib {
			if w := nodes[ch].txn; w != reader {
				c.add(reader, w, depgraph.RW, or.row, r.stmt, -1, or.wl, r.lock)
			}
		}
		for x := nodes[n].del; x >= 0; x = obs[x].next {
			dr := &p.results[obs[x].res]
			if dr.txn != reader {
				c.add(reader, dr.txn, depgraph.RW, or.row, r.stmt, dr.stmt, or.wl, r.lock)
			}
		}
		if p.failed[reader] {
			continue
		}
		// G1a: the version read descends from a write of a failed txn.
		for i := len(or.wl) - 1; i >= 0; i-- {
			if w := or.wl[i]; p.failed[w] && w != reader {
				d.AbortedReads = append(d.AbortedReads, Read{Txn: p.ids[reader], Stmt: r.stmt, Row: p.rows[or.row], WList: WList{p, or.wl}, Writer: p.ids[w]})
				break
			}
		}
		// G1b: the last writer wrote the row again afterwards.
		if last >= 0 && last != reader && !p.failed[last] {
			for ch := nodes[n].child; ch >= 0; ch = nodes[ch].sib {
				if nodes[ch].txn == last {
					d.IntermediateReads = append(d.IntermediateReads, Read{Txn: p.ids[reader], Stmt: r.stmt, Row: p.rows[or.row], WList: WList{p, or.wl}, Writer: p.ids[last]})
					break
				}
			}
		}
	}
}

// forks are the versions with two next writers that did not abort.
func forks(p *prepared, nodes []node, obs []obsRef) []Fork {
	var out []Fork
	// Forks: a version with two next writers that did not abort.
	for ni := range nodes {
		var first int32 = -1
		for ch := nodes[ni].child; ch >= 0; ch = nodes[ch].sib {
			if p.failed[nodes[ch].txn] {
				continue
			}
			if first < 0 {
				first = ch
				continue
			}
			out = append(out, forkAt(p, nodes, obs, int32(ni), first, ch))
		}
	}
	return out
}

func pathOf(nodes []node, n int32) []int32 {
	var wl []int32
	for ; nodes[n].txn >= 0; n = nodes[n].parent {
		wl = append(wl, nodes[n].txn)
	}
	slices.Reverse(wl)
	return wl
}

// rowOfNode finds the row of a node: roots were allocated first, one per
// row in row order, so a root's index is its row.
func rowOfNode(nodes []node, n int32) int32 {
	for nodes[n].parent >= 0 {
		n = nodes[n].parent
	}
	return n
}

// deepest returns an observation in the subtree under n (for reporting).
func deepest(nodes []node, n int32) (int32, int32) {
	for {
		if nodes[n].obs >= 0 {
			return n, nodes[n].obs
		}
		if nodes[n].del >= 0 {
			return n, nodes[n].del
		}
		n = nodes[n].child
	}
}

func forkAt(p *prepared, nodes []node, obs []obsRef, base, a, b int32) Fork {
	row := rowOfNode(nodes, base)
	na, oa := deepest(nodes, a)
	nb, ob := deepest(nodes, b)
	read := func(o int32, n int32) Read {
		r := &p.results[obs[o].res]
		return Read{Txn: p.ids[r.txn], Stmt: r.stmt, Row: p.rows[row], WList: WList{p, pathOf(nodes, n)}}
	}
	f := Fork{Row: p.rows[row], A: p.wlist(pathOf(nodes, na)), B: p.wlist(pathOf(nodes, nb)), AStmt: read(oa, na), BStmt: read(ob, nb), Base: p.wlist(pathOf(nodes, base))}
	f.Reason = fmt.Sprintf("row %s has two version histories: %s and %s both continue %s, so T%d and T%d both overwrote the same version (a lost write)",
		f.Row, f.A, f.B, orNone(f.Base), p.ids[nodes[a].txn], p.ids[nodes[b].txn])
	return f
}

func orNone(s string) string {
	if s == "" {
		return "the empty history"
	}
	return s
}

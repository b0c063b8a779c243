package mt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
)

type kv struct{ k, v int64 }

// wref locates a write: the writing transaction, its op position, and
// whether it is the transaction's last write to the key (only those are
// versions other transactions may read).
type wref struct {
	txn   int32
	op    int32
	final bool
}

// writeRefs are the wrefs of a history's writes as parallel arrays: most
// look-ups want only the writer, and 4-byte entries put three times as many
// writers in a cache line as 12-byte wrefs (and take 8 bytes a write, not
// 12). An op position fits with the flag: a transaction of 2^30
// operations would take 24 GiB.
type writeRefs struct {
	txn []int32 // the writing transaction
	opf []int32 // op<<1 | 1 if final
}

func newWriteRefs(n int) writeRefs { return writeRefs{make([]int32, n), make([]int32, n)} }

func (ws *writeRefs) set(x int32, w wref) {
	ws.txn[x], ws.opf[x] = w.txn, w.op<<1|b2i(w.final)
}

func (ws *writeRefs) at(x int32) wref {
	return wref{ws.txn[x], ws.opf[x] >> 1, ws.opf[x]&1 != 0}
}

// readRec is one external read: the reader read the version (writer's
// final write to key), and writes says whether the reader then wrote key (a
// ww edge). The flags are the low bits of rw, so that a record stays 16 bytes:
// writes, and slot, the record's rank among its reader's (at most two)
// external reads in versions order, so that the reader's rw arcs can be
// placed without a pass to sort them (see rwTargets).
type readRec struct {
	writer int32
	rw     int32 // reader<<2 | slot<<1 | writes
	key    int64
}

// maxTxns bounds the transactions of a history: a reader's index and two
// flags share a readRec's int32 (a history that long would need about
// 100 GiB).
const maxTxns = 1 << 29

func newReadRec(writer, reader int32, key int64, writes bool) readRec {
	r := readRec{writer: writer, rw: reader << 2, key: key}
	if writes {
		r.rw |= 1
	}
	return r
}

func (r readRec) reader() int32 { return r.rw >> 2 }
func (r readRec) writes() bool  { return r.rw&1 != 0 }
func (r readRec) slot() int32   { return r.rw >> 1 & 1 }

// before orders the versions of two reads: by writer, then key.
func (r readRec) before(s readRec) bool {
	return r.writer < s.writer || r.writer == s.writer && r.key < s.key
}

type indexed struct {
	h     *chist
	wrefs writeRefs
	// opOff[i] is the flat index of transaction i's first op; readOf[flat
	// op] is the index into wrefs of the write a read observed, or -1 (no
	// such write, or the op is a write). resolve matches all reads at once;
	// the later passes read this array sequentially.
	opOff    []int32
	readOf   []int32
	included []bool    // committed, or unknown but observed
	byVer    []readRec // external reads grouped by version (writer, key)
	verOff   []int32   // byVer[verOff[w]:verOff[w+1]] are the reads of w's versions
	// readCounts[c][w] counts the external reads of w's versions in chunk
	// c of countWorkers(n): readChecks leaves them for readsByWriter.
	readCounts [][]int32
	init       int32
	arcs       *fastArcs   // the rest of the cycle test's input, see fastArcs
	sessions   sessionSpan // the session numbers' range, if the index noted it
	// spare are arrays of len(h.Txns) int32s an earlier phase is done with
	// (readsByWriter's counts), which later ones reuse (spareInt32s)
	// rather than allocate: 4 bytes a transaction each.
	spare [][]int32
}

// spareInt32s returns an array of len(h.Txns) int32s, not cleared: the
// caller writes every element.
func (ix *indexed) spareInt32s() []int32 {
	if k := len(ix.spare); k > 0 {
		a := ix.spare[k-1]
		ix.spare = ix.spare[:k-1]
		return a
	}
	return make([]int32, len(ix.h.Txns))
}

// index checks the MT assumptions and finds the write every read observed:
// on every core (indexParallel), or, when the history breaks an assumption,
// serially, to name the first problem.
func index(h *chist) (*indexed, error) {
	if len(h.Txns) >= maxTxns {
		return nil, badInput("%d transactions: at most %d can be checked", len(h.Txns), maxTxns-1)
	}
	if ix, ok := indexParallel(h); ok {
		return ix, nil
	}
	return indexSerial(h)
}

// indexSerial is index in one pass over the history.
func indexSerial(h *chist) (*indexed, error) {
	n := len(h.Txns)
	ix := &indexed{h: h, included: make([]bool, n), init: -1}
	var initKeys map[int64]bool
	nw := 0
	ix.opOff = make([]int32, n+1)
	for i := range h.Txns {
		for _, o := range h.Txns[i].Ops {
			if o.Kind == history.W {
				nw++
			}
		}
		ix.opOff[i+1] = ix.opOff[i] + int32(len(h.Txns[i].Ops))
	}
	ix.wrefs = newWriteRefs(nw)
	nextW := int32(0)
	// What resolve matches, collected in the one pass over the history: the
	// (key, value) of every write (parallel to wrefs) and of every read.
	wkv := make([]kv, 0, nw)
	rocc := make([]occ, 0, int(ix.opOff[n])-nw)
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Init {
			ix.init = int32(i)
			initKeys = make(map[int64]bool, len(t.Ops))
			for _, o := range t.Ops {
				if o.Kind != history.W {
					return nil, badInput("initial transaction T%d has a read %v", t.ID, o)
				}
				initKeys[o.Key] = true
			}
		}
	}
	// The first shape error ends the scan; a value written twice before it
	// (found by resolve, among the writes collected so far) is reported
	// instead, as it comes first in the history.
	var shapeErr error
scan:
	for i := range h.Txns {
		t := &h.Txns[i]
		if !t.Init {
			if shapeErr = checkShape(t); shapeErr != nil {
				break
			}
		}
		var final []bool
		if len(t.Ops) > smallTxn {
			final = finalWrites(t.Ops)
		}
		for j, o := range t.Ops {
			if initKeys != nil && !initKeys[o.Key] {
				shapeErr = badInput("T%d uses key %d, which the initial transaction does not write", t.ID, o.Key)
				break scan
			}
			if o.Kind != history.W {
				rocc = append(rocc, occ{kv{o.Key, o.Value}, ix.opOff[i] + int32(j)})
				continue
			}
			ix.wrefs.set(nextW, wref{int32(i), int32(j), isFinal(t.Ops, j, final)})
			nextW++
			wkv = append(wkv, kv{o.Key, o.Value})
		}
		ix.included[i] = t.Status == history.OK
	}
	if shapeErr != nil {
		rocc = nil // the reads will not be needed
	}
	if first, second := ix.resolve(wkv, rocc); first >= 0 {
		w := ix.wrefs.at(second)
		o := h.Txns[w.txn].Ops[w.op]
		return nil, badInput("value %d is written to key %d twice, by T%d and T%d (MT histories need unique values)",
			o.Value, o.Key, h.Txns[ix.wrefs.txn[first]].ID, h.Txns[w.txn].ID)
	}
	if shapeErr != nil {
		return nil, shapeErr
	}
	ix.observeUnknown()
	return ix, nil
}

// observeUnknown includes the transactions of unknown outcome that another
// transaction observed: an unknown commit took effect iff someone observed
// it; never guess.
//
// Each chunk of the history lists the ones its reads observed, on every
// core; they are few, and included is set from the lists afterwards.
func (ix *indexed) observeUnknown() {
	h := ix.h
	n := len(h.Txns)
	nc := workers(n)
	seen := make([][]int32, nc)
	each(nc, func(c int) {
		for i := n * c / nc; i < n*(c+1)/nc; i++ {
			if h.Txns[i].Status == history.Fail {
				continue
			}
			for _, w := range ix.readOf[ix.opOff[i]:ix.opOff[i+1]] {
				if w >= 0 {
					if wt := ix.wrefs.txn[w]; wt != int32(i) && h.Txns[wt].Status == history.Unknown {
						seen[c] = append(seen[c], wt)
					}
				}
			}
		}
	})
	for _, ts := range seen {
		for _, t := range ts {
			ix.included[t] = true
		}
	}
}

// smallTxn is the most operations a mini-transaction has; up to it, a
// nested loop over the operations is cheapest.
const smallTxn = 4

// finalWrites returns, for a large transaction (the initial one writes
// every key, maybe millions), whether each op is a write and its
// transaction's last write of its key, so that isFinal stays linear: one
// scan backwards, noting the keys seen in a bitmap when they span a small
// range (the usual 0…keys-1; a map of a million keys is ten times slower),
// else in a map.
func finalWrites(ops []history.Op) []bool {
	final := make([]bool, len(ops))
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, o := range ops {
		if o.Kind == history.W {
			lo, hi = min(lo, o.Key), max(hi, o.Key)
		}
	}
	if hi < lo {
		return final // no writes
	}
	if span := uint64(hi) - uint64(lo); span < 64*uint64(len(ops)) {
		seen := make([]uint64, span/64+1)
		for j := len(ops) - 1; j >= 0; j-- {
			if o := ops[j]; o.Kind == history.W {
				d := uint64(o.Key) - uint64(lo)
				final[j] = seen[d/64]&(1<<(d%64)) == 0
				seen[d/64] |= 1 << (d % 64)
			}
		}
		return final
	}
	seen := make(map[int64]bool, len(ops))
	for j := len(ops) - 1; j >= 0; j-- {
		if o := ops[j]; o.Kind == history.W {
			final[j] = !seen[o.Key]
			seen[o.Key] = true
		}
	}
	return final
}

// isFinal reports whether the write ops[j] is its transaction's last write
// of its key (a later one makes its value intermediate). final is
// finalWrites(ops) for a transaction larger than smallTxn, else nil.
func isFinal(ops []history.Op, j int, final []bool) bool {
	if final != nil {
		return final[j]
	}
	for _, p := range ops[j+1:] {
		if p.Kind == history.W && p.Key == ops[j].Key {
			return false
		}
	}
	return true
}

// writer returns the write that op j of transaction i (a read) observed,
// if any.
func (ix *indexed) writer(i int32, j int) (wref, bool) {
	if w := ix.readOf[ix.opOff[i]+int32(j)]; w >= 0 {
		return ix.wrefs.at(w), true
	}
	return wref{}, false
}

// checkShape enforces Definition 8 (one or two reads, at most two writes,
// each write preceded by a read of its key). Transactions that failed before
// any operation may be empty.
func checkShape(t *ctxn) error {
	if len(t.Ops) == 0 && t.Status != history.OK {
		return nil
	}
	reads, writes := 0, 0
	for _, o := range t.Ops {
		if o.Kind == history.R {
			reads++
		} else {
			writes++
		}
	}
	// Counted first, so that a huge transaction is refused in linear time.
	if reads < 1 || reads > 2 || writes > 2 {
		return badInput("T%d is not a mini-transaction: %d reads and %d writes (want 1–2 reads, at most 2 writes)", t.ID, reads, writes)
	}
	for j, o := range t.Ops {
		if o.Kind == history.R {
			continue
		}
		readBefore := false
		for _, p := range t.Ops[:j] {
			readBefore = readBefore || p.Kind == history.R && p.Key == o.Key
		}
		if !readBefore {
			return badInput("T%d is not a mini-transaction: %v is not preceded by a read of key %d", t.ID, o, o.Key)
		}
	}
	return nil
}

// readChecks finds the intra-transactional and read-from anomalies (Table I
// a–g), which must be ruled out before the graph means anything (INT).
// The history is checked in chunks on every core; the anomalies are
// reported in history order.
//
// The same pass counts each chunk's external reads per writer, the first
// pass of readsByWriter, from the writers it looks up anyway: the history
// is large (over 100 bytes a transaction), and reading it again costs more
// than the counting. The counts are those of extReads when INT holds; they
// are dropped if an anomaly is found (Check then builds no graph).
func (ix *indexed) readChecks(res *Result) {
	n := len(ix.h.Txns)
	nc := countWorkers(n)
	found := make([][]Anomaly, nc)
	counts := make([][]int32, nc)
	each(nc, func(c int) {
		counts[c] = make([]int32, n)
		found[c] = ix.checkReadsIn(n*c/nc, n*(c+1)/nc, counts[c])
	})
	ix.readCounts = counts
	for _, f := range found {
		if len(f) > 0 {
			ix.readCounts = nil
		}
		for _, a := range f {
			if len(res.Anomalies) < maxAnomalies {
				res.Anomalies = append(res.Anomalies, a)
			}
		}
	}
}

// maxCountWorkers bounds the chunks of readChecks and readsByWriter: each
// has an array of counts (then cursors) of 4 bytes a transaction, and 16
// cores' would take more memory than the transactions themselves.
const maxCountWorkers = 8

// countWorkers is workers(n), at most maxCountWorkers.
func countWorkers(n int) int { return min(workers(n), maxCountWorkers) }

// readChecksIn is readChecks on transactions [lo, hi), returning at most
// maxAnomalies.
func (ix *indexed) readChecksIn(lo, hi int) []Anomaly { return ix.checkReadsIn(lo, hi, nil) }

// checkReadsIn is readChecksIn, also counting in perWriter (unless nil)
// the external reads of each writer's versions that pass the checks.
func (ix *indexed) checkReadsIn(lo, hi int, perWriter []int32) []Anomaly {
	h := ix.h
	var out []Anomaly
	add := func(name, class semantics.Anomaly, ts []int32, format string, a ...any) {
		if len(out) < maxAnomalies {
			out = append(out, Anomaly{Name: name, Class: class, Txns: ix.refs(ts...), Explanation: fmt.Sprintf(format, a...)})
		}
	}
	for i := lo; i < hi; i++ {
		if !ix.included[i] {
			continue
		}
		t := &h.Txns[i]
		me := int32(i)
	ops:
		for j, o := range t.Ops {
			if o.Kind != history.R {
				continue
			}
			// The latest earlier op on this key decides what the read must return.
			for p := j - 1; p >= 0; p-- {
				q := t.Ops[p]
				if q.Key != o.Key {
					continue
				}
				if q.Value == o.Value {
					continue ops
				}
				if q.Kind == history.R {
					add(semantics.NonRepeatableReads, "", []int32{me}, "T%d read key %d twice and got %d, then %d", t.ID, o.Key, q.Value, o.Value)
					continue ops
				}
				w, ok := ix.writer(me, j)
				switch {
				case ok && w.txn == me && w.op < int32(j):
					add(semantics.NotMyLastWrite, "", []int32{me}, "T%d read key %d = %d, its own earlier write, not its last write %d", t.ID, o.Key, o.Value, q.Value)
				case ok && w.txn == me:
					add(semantics.FutureRead, "", []int32{me}, "T%d read key %d = %d, which it writes only later", t.ID, o.Key, o.Value)
				default:
					add(semantics.NotMyOwnWrite, "", []int32{me}, "T%d wrote %d to key %d but then read %d", t.ID, q.Value, o.Key, o.Value)
				}
				continue ops
			}
			w, ok := ix.writer(me, j)
			switch {
			case !ok:
				add(semantics.ThinAirRead, "", []int32{me}, "T%d read key %d = %d, a value no transaction wrote", t.ID, o.Key, o.Value)
			case w.txn == me:
				add(semantics.FutureRead, "", []int32{me}, "T%d read key %d = %d, which it writes only later", t.ID, o.Key, o.Value)
			case !ix.included[w.txn]:
				// The writer failed: a writer of unknown outcome that an
				// included (so not failed) transaction read is included
				// (observeUnknown), so only a failed one is not. The dense
				// array, not the writer's Txn: one random access less.
				add(semantics.AbortedRead, semantics.G1a, []int32{w.txn, me}, "T%d read key %d = %d, written by T%d, which aborted", t.ID, o.Key, o.Value, h.Txns[w.txn].ID)
			case !w.final:
				add(semantics.IntermediateRead, semantics.G1b, []int32{w.txn, me}, "T%d read key %d = %d, an intermediate value T%d overwrote before committing", t.ID, o.Key, o.Value, h.Txns[w.txn].ID)
			case perWriter != nil:
				perWriter[w.txn]++ // an external read, as extReads finds it
			}
		}
	}
	return out
}

// eachReadIn calls f for every external read of an included transaction
// among [lo, hi) (INT holds), in history order.
func (ix *indexed) eachReadIn(lo, hi int, f func(readRec)) {
	for i := lo; i < hi; i++ {
		r0, r1, k := ix.extReads(i)
		if k > 0 {
			f(r0)
		}
		if k > 1 {
			f(r1)
		}
	}
}

// extReads returns the k external reads of transaction i if it is included
// (INT holds), in history order: at most two, as a mini-transaction has at
// most two reads (the initial transaction has none). Their slots are their
// ranks in versions order. Two results, not an array: they are returned in
// registers, and an array built with narrow stores and copied whole stalls
// on store forwarding (about a quarter of the cost of placing the reads).
func (ix *indexed) extReads(i int) (r0, r1 readRec, k int) {
	if !ix.included[i] {
		return r0, r1, 0
	}
	ops := ix.h.Txns[i].Ops
	readOf := ix.readOf[ix.opOff[i]:ix.opOff[i+1]]
	me := int32(i)
ops:
	for j := range ops {
		o := &ops[j]
		if o.Kind != history.R {
			continue
		}
		for p := range ops[:j] {
			if ops[p].Key == o.Key {
				continue ops // a repeated read (same value, checked) or of its own write
			}
		}
		w := int32(0) // the writer (0 if none: INT fails, readChecks reports it)
		if x := readOf[j]; x >= 0 {
			w = ix.wrefs.txn[x]
		}
		if w == me {
			continue // its own later write (a future read)
		}
		writes := false
		for p := j + 1; p < len(ops); p++ {
			writes = writes || ops[p].Kind == history.W && ops[p].Key == o.Key
		}
		switch k {
		case 0:
			r0 = newReadRec(w, me, o.Key, writes)
		case 1:
			r1 = newReadRec(w, me, o.Key, writes)
		default:
			break ops // unreachable: index has checked the shapes
		}
		k++
	}
	if k == 2 {
		if r1.before(r0) {
			r0.rw |= 2
		} else {
			r1.rw |= 2
		}
	}
	return r0, r1, k
}

// eachArc calls main for Ĝ's so and wr arcs and rw for its rw arcs (either
// may be nil), in build's order, unlabeled and without the ww edges: each
// ww edge directly follows a wr edge between the same two transactions, and
// a repeated arc changes neither reachability nor the order Tarjan finds
// components in.
func (ix *indexed) eachArc(main, rw func(from, to int32)) {
	if main != nil {
		ix.sessionOrder(main)
		for _, r := range ix.versions() {
			main(r.writer, r.reader())
		}
	}
	if rw != nil {
		ix.antiDeps(func(from, to int32, _ int64) { rw(from, to) })
	}
}

// sessionOrder calls f for consecutive included transactions p, i of a
// session; the transitive so edges are implied.
func (ix *indexed) sessionOrder(f func(p, i int32)) {
	h := ix.h
	// Sessions are usually numbered 0…k: a slice then, a map otherwise.
	lo, hi := 0, -1
	for i := range h.Txns {
		if s := h.Txns[i].Session; hi < lo {
			lo, hi = s, s
		} else {
			lo, hi = min(lo, s), max(hi, s)
		}
	}
	if hi >= lo && uint(hi)-uint(lo) < 1<<20 { // unsigned: hi-lo may overflow
		last := make([]int32, hi-lo+1)
		for i := range last {
			last[i] = -1
		}
		for i := range h.Txns {
			if !ix.included[i] || h.Txns[i].Init {
				continue
			}
			s := h.Txns[i].Session - lo
			if p := last[s]; p >= 0 {
				f(p, int32(i))
			}
			last[s] = int32(i)
		}
		return
	}
	last := make(map[int]int32)
	for i := range h.Txns {
		if !ix.included[i] || h.Txns[i].Init {
			continue
		}
		s := h.Txns[i].Session
		if p, ok := last[s]; ok {
			f(p, int32(i))
		}
		last[s] = int32(i)
	}
}

// antiDeps calls f for every rw edge: a reader of a version precedes the
// transaction that overwrote it.
func (ix *indexed) antiDeps(f func(from, to int32, key int64)) {
	// Reads are grouped by version (writer, key), see versions.
	rs := ix.versions()
	for lo := 0; lo < len(rs); {
		hi := lo
		w, k := rs[lo].writer, rs[lo].key
		for hi < len(rs) && rs[hi].writer == w && rs[hi].key == k {
			hi++
		}
		ver := rs[lo:hi]
		for _, u := range ver {
			if !u.writes() {
				continue
			}
			for _, s := range ver {
				if s.reader() != u.reader() {
					f(s.reader(), u.reader(), k)
				}
			}
		}
		lo = hi
	}
}

// versions returns the external reads grouped by the version read.
func (ix *indexed) versions() []readRec {
	if ix.byVer == nil {
		ix.byVer = ix.readsByWriter()
	}
	return ix.byVer
}

// readsByWriter groups the external reads by writer, and within a writer
// by key (a writer has at most two keys except the initial transaction,
// whose group is sorted by key). Each chunk of the history counts its reads
// per writer (readChecks has usually done so), then, once the offsets are
// known, finds them again and places them: two passes over the history
// instead of a second copy of the records. A writer's group holds the
// chunks' reads in chunk order, so it is in history order before the sort
// by key, which is stable.
func (ix *indexed) readsByWriter() []readRec {
	n := len(ix.h.Txns)
	// The counts readChecks made, else count now.
	pos := ix.readCounts
	ix.readCounts = nil
	if pos == nil {
		pos = make([][]int32, countWorkers(n))
		each(len(pos), func(c int) {
			cnt := make([]int32, n)
			for i := n * c / len(pos); i < n*(c+1)/len(pos); i++ {
				r0, r1, k := ix.extReads(i)
				if k > 0 {
					cnt[r0.writer]++
				}
				if k > 1 {
					cnt[r1.writer]++
				}
			}
			pos[c] = cnt
		})
	}
	nc := len(pos)
	off := make([]int32, n+1) // off[i] is the start of writer i's group
	// The counts become cursors: writer by writer, chunk by chunk within a
	// writer. That is n·nc steps, so it is done per range of writers on
	// every core too, each range starting where the reads of the ranges
	// before it end.
	total := make([]int32, nc+1)
	each(nc, func(r int) {
		sum := int32(0)
		for w := n * r / nc; w < n*(r+1)/nc; w++ {
			for c := range nc {
				sum += pos[c][w]
			}
		}
		total[r+1] = sum
	})
	for r := range nc {
		total[r+1] += total[r]
	}
	each(nc, func(r int) {
		at := total[r]
		for w := n * r / nc; w < n*(r+1)/nc; w++ {
			off[w] = at
			for c := range nc {
				// A cursor is written only where there are reads to place:
				// a chunk's counts of the writers it never read from stay
				// on pages nobody wrote.
				if k := pos[c][w]; k != 0 {
					pos[c][w] = at
					at += k
				}
			}
		}
	})
	at := total[nc]
	off[n] = at
	out := make([]readRec, at)
	each(nc, func(c int) {
		p := pos[c]
		for i := n * c / nc; i < n*(c+1)/nc; i++ {
			r0, r1, k := ix.extReads(i)
			if k > 0 {
				out[p[r0.writer]] = r0
				p[r0.writer]++
			}
			if k > 1 {
				out[p[r1.writer]] = r1
				p[r1.writer]++
			}
		}
	})
	each(nc, func(c int) {
		for i := n * c / nc; i < n*(c+1)/nc; i++ {
			sortByKey(out[off[i]:off[i+1]])
		}
	})
	ix.verOff = off
	ix.spare = append(ix.spare, pos...) // the cursors are done with
	return out
}

// sortByKey sorts a writer's group of reads by key, stably. Most groups
// are a few reads of at most two keys: an insertion sort, without the
// calls of a comparison function, is fastest for them.
func sortByKey(grp []readRec) {
	if len(grp) > 16 {
		if !slices.IsSortedFunc(grp, cmpKey) {
			slices.SortStableFunc(grp, cmpKey)
		}
		return
	}
	for i := 1; i < len(grp); i++ {
		for j := i; j > 0 && grp[j].key < grp[j-1].key; j-- {
			grp[j], grp[j-1] = grp[j-1], grp[j]
		}
	}
}

func cmpKey(a, b readRec) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return 0
}

// divergence reports every DIVERGENCE instance (Definition 10): two
// transactions overwrote the same version. It forbids SI (Lemma 1): a lost
// update. rwTargets, which the cycle test needs anyway, has found on every
// core whether there is one.
func (ix *indexed) divergence(res *Result) {
	if !ix.fastArcs().diverges {
		return
	}
	rs := ix.versions()
	for lo := 0; lo < len(rs); {
		hi := lo
		for hi < len(rs) && rs[hi].writer == rs[lo].writer && rs[hi].key == rs[lo].key {
			hi++
		}
		u := int32(-1)
		for _, r := range rs[lo:hi] {
			if !r.writes() {
				continue
			}
			if u < 0 {
				u = r.reader()
				continue
			}
			ix.lostUpdate(res, r, u)
		}
		lo = hi
	}
}

func (ix *indexed) lostUpdate(res *Result, r readRec, u int32) {
	h := ix.h
	{
		if len(res.Anomalies) >= maxAnomalies {
			return
		}
		a, b := &h.Txns[u], &h.Txns[r.reader()]
		val := ix.readValue(r.reader(), r.key)
		res.Anomalies = append(res.Anomalies, Anomaly{
			Name: semantics.LostUpdate, Class: semantics.GSingle,
			Txns: ix.refs(r.writer, u, r.reader()),
			Cycle: []Step{
				{From: a.ID, To: b.ID, Kind: "rw", Key: r.key},
				{From: b.ID, To: a.ID, Kind: "rw", Key: r.key},
			},
			Explanation: fmt.Sprintf("T%d and T%d both read key %d = %d (written by %s) and both overwrote it (with %d and %d): one update is lost whichever order they commit in",
				a.ID, b.ID, r.key, val, ix.name(r.writer), ix.writeValue(u, r.key), ix.writeValue(r.reader(), r.key)),
		})
	}
}

func (ix *indexed) readValue(t int32, key int64) int64 {
	for _, o := range ix.h.Txns[t].Ops {
		if o.Kind == history.R && o.Key == key {
			return o.Value
		}
	}
	return 0
}

func (ix *indexed) writeValue(t int32, key int64) int64 {
	var v int64
	for _, o := range ix.h.Txns[t].Ops {
		if o.Kind == history.W && o.Key == key {
			v = o.Value
		}
	}
	return v
}

// timedEnd is an included transaction's end time, as two halves so that
// the struct is 12 bytes, not 16 (one per transaction).
type timedEnd struct {
	hi int32
	lo uint32
	t  int32
}

func newTimedEnd(end int64, t int32) timedEnd {
	return timedEnd{int32(end >> 32), uint32(end), t}
}

func (e timedEnd) end() int64 { return int64(e.hi)<<32 | int64(e.lo) }

// ends and starts report whether transaction i has an end and a start in
// SSER's real-time order (see realTime): both included, non-initial
// transactions, an end only when it is known.
func (ix *indexed) ends(i int32) bool {
	t := &ix.h.Txns[i]
	return ix.included[i] && t.End != 0 && !t.Init
}

func (ix *indexed) starts(i int32) bool { return ix.included[i] && !ix.h.Txns[i].Init }

// sortedEnds lists the included transactions' end times, ascending: the
// chain of time nodes n, n+1, … of realTime.
func (ix *indexed) sortedEnds() []timedEnd {
	h := ix.h
	ends := make([]timedEnd, 0, len(h.Txns))
	for i := range int32(len(h.Txns)) {
		if ix.ends(i) {
			ends = append(ends, newTimedEnd(h.Txns[i].End, i))
		}
	}
	sortEnds(ends)
	return ends
}

// sortEnds sorts ends by time.
func sortEnds(ends []timedEnd) {
	slices.SortFunc(ends, func(a, b timedEnd) int { return cmp.Compare(a.end(), b.end()) })
}

// latestEnds returns, for every included non-initial transaction, the
// index into ends of the latest end strictly before its start (-1: none,
// or not included).
func (ix *indexed) latestEnds(ends []timedEnd) []int32 {
	h := ix.h
	out := ix.spareInt32s()
	j := 0
	for i := range int32(len(h.Txns)) {
		out[i] = -1
		if !ix.starts(i) {
			continue
		}
		// j = number of ends strictly before the start; node j-1 is the
		// latest. Starts come nearly in order in a history, so the search
		// gallops from the previous answer.
		j = endsBefore(ends, h.Txns[i].Start, j)
		out[i] = int32(j - 1)
	}
	return out
}

// endsBefore returns the number of ends strictly before s, searching
// outwards from hint in steps that double, then by bisection: O(log d) for
// an answer d away from hint, and the few cache lines near it.
func endsBefore(ends []timedEnd, s int64, hint int) int {
	// Invariant: the answer is in [lo, hi].
	lo, hi := 0, len(ends)
	if hint < len(ends) && ends[hint].end() < s {
		lo = hint + 1
		for step := 1; ; step *= 2 {
			if p := lo + step - 1; p >= len(ends) || ends[p].end() >= s {
				hi = min(p, len(ends))
				break
			} else {
				lo = p + 1
			}
		}
	} else {
		hi = min(hint, len(ends))
		for step := 1; ; step *= 2 {
			if p := hi - step; p < 0 || ends[p].end() < s {
				lo = max(p+1, 0)
				break
			} else {
				hi = p
			}
		}
	}
	// Bisect: the first index in [lo, hi) whose end is not before s, else hi.
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ends[m].end() < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// realTimeArcs calls f for realTime's arcs over the sorted ends and
// latestEnds(ends).
func (ix *indexed) realTimeArcs(ends []timedEnd, latest []int32, f func(from, to int32)) {
	n := len(ix.h.Txns)
	m := len(ends)
	for i, e := range ends {
		f(e.t, int32(n+i))
		if i+1 < m {
			f(int32(n+i), int32(n+i+1))
		}
	}
	for i, j := range latest {
		if j >= 0 {
			f(int32(n)+j, int32(i))
		}
	}
}

// step is a cycle edge between transactions (time nodes collapsed).
type step struct {
	from, to int32
	kind     depgraph.Kind
	key      int64
}

// collapse makes T → time … time → S one rt step T → S, the cycle rotated
// first so that it does not start inside the chain.
func (ix *indexed) collapse(out []step) []step {
	n := int32(len(ix.h.Txns))
	for i := range out {
		if out[i].from < n {
			out = append(out[i:], out[:i]...)
			break
		}
	}
	var col []step
	for _, s := range out {
		if s.from >= n && len(col) > 0 && col[len(col)-1].kind == depgraph.RT {
			col[len(col)-1].to = s.to
			continue
		}
		col = append(col, s)
	}
	return col
}

// explain names a cycle with Table I and writes it out in plain English.
func (ix *indexed) explain(steps []step) Anomaly {
	h := ix.h
	kinds := make([]depgraph.Kind, len(steps))
	var ts []int32
	a := Anomaly{}
	var sent []string
	for i, s := range steps {
		kinds[i] = s.kind
		ts = append(ts, s.from)
		from, to := h.Txns[s.from].ID, h.Txns[s.to].ID
		a.Cycle = append(a.Cycle, Step{From: from, To: to, Kind: s.kind.String(), Key: s.key})
		fn, tn := ix.name(s.from), ix.name(s.to)
		switch s.kind {
		case depgraph.WR:
			sent = append(sent, fmt.Sprintf("%s read key %d = %d written by %s", tn, s.key, ix.writeValue(s.from, s.key), fn))
		case depgraph.WW:
			sent = append(sent, fmt.Sprintf("%s overwrote %s's value %d of key %d with %d", tn, fn, ix.writeValue(s.from, s.key), s.key, ix.writeValue(s.to, s.key)))
		case depgraph.RW:
			sent = append(sent, fmt.Sprintf("%s read key %d = %d, which %s overwrote with %d", fn, s.key, ix.readValue(s.from, s.key), tn, ix.writeValue(s.to, s.key)))
		case depgraph.SO:
			sent = append(sent, fmt.Sprintf("%s came before %s in session %d", fn, tn, h.Txns[s.from].Session))
		case depgraph.RT:
			sent = append(sent, fmt.Sprintf("%s ended before %s started", fn, tn))
		}
	}
	a.Class = semantics.Anomaly(depgraph.Classify(kinds))
	a.Name = ix.nameCycle(steps, kinds)
	a.Txns = ix.refs(ts...)
	a.Explanation = strings.Join(sent, "; ") + ": each must come before the next, around a cycle, so no order of the transactions explains what they saw"
	return a
}

func (ix *indexed) nameCycle(steps []step, kinds []depgraph.Kind) semantics.Anomaly {
	var rw int
	var so, rt, adjacent bool
	for i, k := range kinds {
		switch k {
		case depgraph.RW:
			rw++
			adjacent = adjacent || kinds[(i+1)%len(kinds)] == depgraph.RW
		case depgraph.SO:
			so = true
		case depgraph.RT:
			rt = true
		}
	}
	switch {
	case rt:
		return semantics.RealTimeViolation
	case so && rw < 2:
		// A session that does not see its own earlier transaction. With two
		// or more anti-dependencies the session edge only orders the two
		// halves of a write skew or long fork, and is named as that.
		return semantics.SessionGuaranteeViolation
	case rw == 0:
		return semantics.CircularInformationFlow
	case rw == 1 && len(steps) == 2:
		// T →wr/ww S →rw T: S saw one of T's writes but not another.
		i := 0
		if kinds[0] == depgraph.RW {
			i = 1
		}
		seen, missed := steps[i], steps[1-i]
		if ix.readPos(seen.to, seen.key) < ix.readPos(missed.from, missed.key) {
			return semantics.NonMonotonicRead
		}
		return semantics.FracturedRead
	case rw == 1:
		return semantics.CausalityViolation
	case !adjacent:
		return semantics.LongFork
	case len(steps) == 2 && steps[0].key == steps[1].key:
		return semantics.LostUpdate
	}
	return semantics.WriteSkew
}

func (ix *indexed) readPos(t int32, key int64) int {
	for j, o := range ix.h.Txns[t].Ops {
		if o.Kind == history.R && o.Key == key {
			return j
		}
	}
	return -1
}

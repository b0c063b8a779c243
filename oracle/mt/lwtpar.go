package mt

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
)

// lwtParallelMin is the fewest transactions worth splitting an LWT check
// by key across cores, and lwtParallelCores the fewest cores (variables so
// that tests can split small ones). A split check reads the history twice,
// once to place each transaction in its part; on 2 cores that cost more
// than the second core gave back at every size measured (10k to 1M
// operations), so it is left to machines with more.
var lwtParallelMin, lwtParallelCores = 1 << 16, 4

// checkLWTParallel is checkLWT with the keys split across cores:
// linearizability is local, and every lightweight transaction reads and
// writes one key, so each part's chains are checked on their own.
func checkLWTParallel(h *chist) (*Result, error) {
	parts := min(runtime.GOMAXPROCS(0), 64)
	if len(h.Txns) < lwtParallelMin || parts < lwtParallelCores {
		parts = 1
	}
	return checkLWTSplit(h, parts)
}

// Per-transaction flags of the LWT check: the number of ops, the status,
// whether a chain has reached the transaction, and whether that was
// settled as the transaction was linked.
const (
	lwtOps     = 3 // mask: 0, 1 (an insert) or 2 (a compare-and-set)
	lwtOK      = 1 << 2
	lwtFail    = 1 << 3
	lwtChained = 1 << 4
	// lwtSettled: on a chain for good, its real-time check done. An
	// insert that starts a chain is; so is a committed CAS linked to a
	// settled transaction, since no later CAS can take its place (link
	// replaces only a successor that did not commit).
	lwtSettled = 1 << 5
)

// lwtFlags are t's flags, chained or not.
func lwtFlags(t *ctxn) uint8 {
	f := uint8(len(t.Ops))
	switch t.Status {
	case history.OK:
		f |= lwtOK
	case history.Fail:
		f |= lwtFail
	}
	return f
}

// lwtCheck is what the parts of one LWT check share, in dense arrays
// indexed by transaction, so that linking and walking the chains seldom go
// back to the history's transactions and their separately allocated ops.
// Each part writes only its own transactions' entries.
type lwtCheck struct {
	h    *chist
	fl   []uint8
	succ []int32 // the next transaction in the chain + 1, 0 for none
	// The latest start on a settled transaction's chain up to it: a
	// transaction linked after it that ended before that is a real-time
	// violation.
	maxStart []int64
}

// lwtChecks keeps a check's arrays (*lwtCheck) for later checks, as
// wtables keeps tables.
var lwtChecks sync.Pool

// newLWTCheck returns the arrays for checking h: succ cleared, the others
// written before they are read. Give them back with free.
func newLWTCheck(h *chist) *lwtCheck {
	n := len(h.Txns)
	c, _ := lwtChecks.Get().(*lwtCheck)
	if c == nil || cap(c.fl) < n {
		return &lwtCheck{h: h, fl: make([]uint8, n), succ: make([]int32, n), maxStart: make([]int64, n)}
	}
	c.h, c.fl, c.succ, c.maxStart = h, c.fl[:n], c.succ[:n], c.maxStart[:n]
	clear(c.succ)
	return c
}

// free gives the arrays back, without the history.
func (c *lwtCheck) free() {
	c.h = nil
	lwtChecks.Put(c)
}

// checkLWTSplit is the LWT check with the keys hashed into parts (1 to
// 255), each checked on a core of its own. The result does not depend on
// parts, anomaly for anomaly and in order: each part's anomalies carry
// their place in the one-part check's order and are merged. The first
// problem with the input, in history order (a transaction of the wrong
// shape, or a value written the second time), is the error.
func checkLWTSplit(h *chist, parts int) (*Result, error) {
	n := len(h.Txns)
	c := newLWTCheck(h)
	defer c.free()
	out := make([]lwtPart, parts)
	committedCAS := 0
	if parts == 1 {
		// The one part checks shapes and counts as it goes.
		out[0] = c.part(nil, n, true)
		if out[0].bad >= 0 {
			return nil, lwtShapeError(&h.Txns[out[0].bad])
		}
		committedCAS = out[0].committedCAS
	} else {
		members := make([][]int32, parts)
		part := make([]uint8, n) // each transaction's part, math.MaxUint8 for none
		count := make([]int32, parts)
		for i := range h.Txns {
			t := &h.Txns[i]
			if !lwtShaped(t) {
				// A value written twice before it comes first.
				if err := firstWrittenTwice(h, i); err != nil {
					return nil, err
				}
				return nil, lwtShapeError(t)
			}
			c.fl[i] = lwtFlags(t)
			if len(t.Ops) == 0 {
				part[i] = math.MaxUint8 // in no part: it did nothing
				continue
			}
			if len(t.Ops) == 2 && t.Status == history.OK {
				committedCAS++
			}
			k := uint64(t.Ops[0].Key) * 0x9E3779B97F4A7C15
			p := uint8((k >> 32) % uint64(parts))
			part[i] = p
			count[p]++
		}
		for p := range members {
			members[p] = make([]int32, 0, count[p])
		}
		for i, p := range part {
			if p != math.MaxUint8 {
				members[p] = append(members[p], int32(i))
			}
		}
		each(parts, func(p int) { out[p] = c.part(members[p], len(members[p]), false) })
	}

	// The value written twice that comes first in history order: the part
	// that met its duplicate earliest.
	dup := -1
	for p := range out {
		if d := out[p].dup; d[1] >= 0 && (dup < 0 || d[1] < out[dup].dup[1]) {
			dup = p
		}
	}
	if dup >= 0 {
		return nil, lwtTwice(h, out[dup].dup[0], out[dup].dup[1])
	}
	res := &Result{Model: Linearizable, Txns: n}
	ix := &indexed{h: h}
	found := out[0].anomalies
	chainedCAS := out[0].chainedCAS // committed CASes reached by a chain
	for p := 1; p < parts; p++ {
		found = append(found, out[p].anomalies...)
		chainedCAS += out[p].chainedCAS
	}
	if parts > 1 {
		slices.SortStableFunc(found, func(a, b lwtAnomaly) int {
			return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.at, b.at))
		})
	}
	for _, a := range found {
		if len(res.Anomalies) < maxAnomalies {
			res.Anomalies = append(res.Anomalies, Anomaly{Name: a.name, Txns: ix.refs(a.txns...), Explanation: a.text})
		}
	}
	// Committed CASes no chain reached read a value that was never current
	// (written by a CAS that was itself off the chain, e.g. a cycle).
	for i := 0; i < n && chainedCAS < committedCAS; i++ {
		if c.fl[i]&(lwtChained|lwtOK|lwtOps) == lwtOK|2 && len(res.Anomalies) == 0 {
			t := &h.Txns[i]
			res.Anomalies = append(res.Anomalies, Anomaly{Name: semantics.ThinAirRead, Txns: ix.refs(int32(i)),
				Explanation: fmt.Sprintf("T%d changed key %d from %d, a value that was never current", t.ID, t.Ops[0].Key, t.Ops[0].Value)})
		}
	}
	res.Valid = len(res.Anomalies) == 0
	return res, nil
}

// firstWrittenTwice returns the error of the first value written a second
// time by one of the first end transactions (all of the right shape), or
// nil.
func firstWrittenTwice(h *chist, end int) error {
	written := newWtable(end, end)
	defer written.free()
	for i := range end {
		t := &h.Txns[i]
		if len(t.Ops) == 0 {
			continue
		}
		w := t.Ops[len(t.Ops)-1]
		if prev := written.put(h.Txns, w.Key, w.Value, int32(i)); prev >= 0 {
			return lwtTwice(h, prev, int32(i))
		}
	}
	return nil
}

// lwtPart is what one part of the keys found.
type lwtPart struct {
	bad          int32    // the first transaction of the wrong shape, or -1
	dup          [2]int32 // the first value written twice: earlier and later writer, or -1
	anomalies    []lwtAnomaly
	chainedCAS   int
	committedCAS int // counted only by a part that checks shapes
}

// lwtAnomaly is an anomaly with its place in the serial check's order:
// phase 0 (the pass over transactions, at the transaction's index) before
// phase 1 (the chains, at their insert's index).
type lwtAnomaly struct {
	phase, at int32
	name      semantics.Anomaly
	txns      []int32
	text      string
}

// part runs the LWT check over the n transactions ts (history order) of
// one part of the keys, or over all transactions when ts is nil. With
// shapes it also checks the transactions' shapes, stopping at the first
// wrong one, and sets their flags; otherwise the flags are set.
//
// One pass fills the table of writes and, while every CAS so far found the
// writer of the value it read among the transactions before it, links it
// into its chain at once (most in fast's loop, the rest here). The first
// that does not (its writer comes later in the history, or there is none)
// stops the linking: from there the pass only notes the writers it finds,
// and a second pass links the rest in history order, once every write is
// in the table. Then chains walks what linking did not settle.
func (c *lwtCheck) part(ts []int32, n int, shapes bool) lwtPart {
	r := lwtRun{lwtCheck: c, out: lwtPart{bad: -1, dup: [2]int32{-1, -1}}, written: newWtable(n, len(c.h.Txns))}
	defer r.written.free()
	txns, fl := c.h.Txns, c.fl
	// From the first CAS whose writer was not found on, the writers found
	// (+1, 0 to look again), by place from there: made only then.
	var rd []int32
	slots, shift, idx := r.written.slots, r.written.shift, r.written.idx
	mask := uint64(len(slots) - 1)
	last := &r.last
	linked := n // the position from which the second pass links
	for j := 0; j < n; j++ {
		if linked == n {
			if j = r.fast(ts, j, n, shapes); j == n {
				break
			}
		}
		i := int32(j)
		if ts != nil {
			i = ts[j]
		}
		t := &txns[i]
		if shapes {
			if !lwtShaped(t) {
				// No value was written twice before it: each was put.
				r.out.bad = i
				return r.out
			}
			fl[i] = lwtFlags(t)
			if len(t.Ops) == 2 && t.Status == history.OK {
				r.out.committedCAS++
			}
		}
		ops := t.Ops
		if len(ops) == 0 {
			continue
		}
		// wtable.put, here for speed.
		w := ops[len(ops)-1]
		hk := hashKV(w.Key, w.Value)
		x := hk >> shift
		for ; slots[x] != 0; x = (x + 1) & mask {
			if (slots[x]^uint32(hk))&^idx == 0 {
				if prev := int32(slots[x]&idx) - 1; writes(&txns[prev], w.Key, w.Value) {
					r.out.dup = [2]int32{prev, i}
					return r.out
				}
			}
		}
		slots[x] = uint32(hk)&^idx | uint32(i+1)
		e := &last[uint64(w.Key)*0x9E3779B97F4A7C15>>56]
		p := int32(-1)
		if len(ops) == 2 && e.at != 0 && e.k == ops[0].Key && e.v == ops[0].Value {
			p = e.at - 1
		}
		e.k, e.v, e.at = w.Key, w.Value, i+1
		if t.Status == history.Fail {
			continue
		}
		if len(ops) == 1 {
			if linked == n {
				r.insert(i)
			}
			continue
		}
		if p < 0 {
			p = r.written.get(txns, ops[0].Key, ops[0].Value)
		}
		if linked == n {
			switch {
			case p >= 0:
				r.link(i, p)
			default:
				linked = j
				rd = make([]int32, n-j)
			}
			continue
		}
		rd[j-linked] = p + 1
	}
	for j := linked; j < n; j++ {
		i := int32(j)
		if ts != nil {
			i = ts[j]
		}
		switch f := fl[i]; {
		case f&lwtFail != 0 || f&lwtOps == 0:
		case f&lwtOps == 1:
			r.insert(i)
		default:
			p := rd[j-linked] - 1
			if p < 0 {
				o := txns[i].Ops[0]
				p = r.written.get(txns, o.Key, o.Value)
			}
			r.link(i, p)
		}
	}
	r.chains(ts, n)
	if r.insertOf != nil {
		clear(r.insertOf)
		insertMaps.Put(r.insertOf)
	}
	return r.out
}

// insertMaps keeps the maps of each key's insert (map[int64]int32) between
// checks, as wtables keeps tables: a history with many keys grew a fresh
// one every check.
var insertMaps sync.Pool

// lwtRun is one part's check under way.
type lwtRun struct {
	*lwtCheck
	out     lwtPart
	written wtable
	// The last write of each key, in a small direct-mapped cache: a CAS
	// mostly reads the value its key's previous write wrote, and since a
	// value is written once (or the history is refused) that write is the
	// one the table would find.
	last [256]struct {
		k, v int64
		at   int32 // index + 1; 0 = empty
	}
	insertOf map[int64]int32
	inserts  []int32
	// Settled transactions whose successors are not: the chains' walks
	// start there.
	frontier []int32
	violated bool // a settled transaction ended before its chain's latest start
}

// fast is part's first pass over its transactions from the j-th, for as
// long as each is a committed CAS whose writer (its key's last write, or
// else the table's) is settled and has no successor yet, and whose written
// value the table has no tag of: then there is nothing to decide, and
// fewer instructions do it. It returns the place of the first transaction
// it did not take, leaving it as if it had not looked at it.
func (r *lwtRun) fast(ts []int32, j, n int, shapes bool) int {
	// One length for every array, and no more live values than registers:
	// the loop's bounds checks and spills were half its instructions.
	txns := r.h.Txns
	m := len(txns)
	fl, succ, maxStart := r.fl[:m], r.succ[:m], r.maxStart[:m]
	slots, shift, idx := r.written.slots, r.written.shift&63, r.written.idx
	mask := uint64(len(slots) - 1)
	last := &r.last
	from := j
loop:
	for ; j < n; j++ {
		i := j
		if ts != nil {
			i = int(ts[j])
		}
		t := &txns[i]
		ops := t.Ops
		if len(ops) != 2 || t.Status != history.OK || t.Init {
			break
		}
		o, w := &ops[0], &ops[1]
		if o.Kind != history.R || w.Kind != history.W || o.Key != w.Key {
			break
		}
		e := &last[uint64(w.Key)*0x9E3779B97F4A7C15>>56]
		p := e.at - 1
		if e.at == 0 || e.k != o.Key || e.v != o.Value {
			if p = r.written.get(txns, o.Key, o.Value); p < 0 {
				break
			}
		}
		if fl[p]&lwtSettled == 0 || succ[p] != 0 {
			break
		}
		hk := hashKV(w.Key, w.Value)
		x := hk >> shift
		for ; slots[x] != 0; x = (x + 1) & mask {
			if (slots[x]^uint32(hk))&^idx == 0 {
				break loop // perhaps a value written twice: part decides
			}
		}
		slots[x] = uint32(hk)&^idx | uint32(i+1)
		e.k, e.v, e.at = w.Key, w.Value, int32(i+1)
		succ[p] = int32(i + 1)
		// settle, here for speed.
		fl[i] = 2 | lwtOK | lwtChained | lwtSettled
		ms := maxStart[p]
		if t.End != 0 && t.End < ms {
			r.violated = true
		}
		maxStart[i] = max(ms, t.Start)
	}
	if shapes {
		r.out.committedCAS += j - from
	}
	r.out.chainedCAS += j - from
	return j
}

func (r *lwtRun) add(phase, at int32, name semantics.Anomaly, txns []int32, format string, a ...any) {
	if len(r.out.anomalies) < maxAnomalies {
		r.out.anomalies = append(r.out.anomalies, lwtAnomaly{phase: phase, at: at, name: name, txns: txns, text: fmt.Sprintf(format, a...)})
	}
}

// insert takes note of the insert i (not failed): the first of its key
// starts the key's chain, or a later one if the first did not commit.
func (r *lwtRun) insert(i int32) {
	if r.insertOf == nil {
		r.insertOf, _ = insertMaps.Get().(map[int64]int32)
		if r.insertOf == nil {
			r.insertOf = make(map[int64]int32)
		}
	}
	txns, fl := r.h.Txns, r.fl
	k := txns[i].Ops[0].Key
	if p, ok := r.insertOf[k]; ok {
		if fl[i]&lwtOK != 0 && fl[p]&lwtOK != 0 {
			r.add(0, i, semantics.LostUpdate, []int32{p, i}, "T%d and T%d both inserted key %d: an insert-if-not-exists succeeded twice", txns[p].ID, txns[i].ID, k)
		}
		if fl[p]&lwtOK != 0 {
			return
		}
	}
	r.insertOf[k] = i
	r.inserts = append(r.inserts, i)
	fl[i] |= lwtChained | lwtSettled
	r.maxStart[i] = txns[i].Start
	if r.succ[i] != 0 {
		r.frontier = append(r.frontier, i)
	}
}

// link makes the CAS i (not failed) the successor of p, the writer of the
// value it read (-1 for none), unless a committed CAS already is.
func (r *lwtRun) link(i, p int32) {
	txns, fl, succ := r.h.Txns, r.fl, r.succ
	f := fl[i]
	if p < 0 || fl[p]&lwtFail != 0 {
		if f&lwtOK != 0 {
			o := txns[i].Ops[0]
			r.add(0, i, semantics.ThinAirRead, []int32{i}, "T%d changed key %d from %d, a value no committed transaction wrote", txns[i].ID, o.Key, o.Value)
		}
		return
	}
	if q := succ[p] - 1; q >= 0 {
		if f&lwtOK != 0 && fl[q]&lwtOK != 0 {
			o := txns[i].Ops[0]
			r.add(0, i, semantics.LostUpdate, []int32{p, q, i}, "T%d and T%d both changed key %d from %d (written by T%d): one compare-and-set overwrote the other",
				txns[q].ID, txns[i].ID, o.Key, o.Value, txns[p].ID)
			return
		}
		if fl[q]&lwtOK != 0 {
			return
		}
	}
	succ[p] = i + 1
	switch {
	case fl[p]&lwtSettled == 0:
	case f&lwtOK != 0:
		r.settle(i, p)
	default:
		r.frontier = append(r.frontier, p)
	}
}

// settle settles the committed CAS i, linked to the settled p.
func (r *lwtRun) settle(i, p int32) {
	t, ms := &r.h.Txns[i], r.maxStart[p]
	r.fl[i] |= lwtChained | lwtSettled
	r.out.chainedCAS++
	if t.End != 0 && t.End < ms {
		r.violated = true
	}
	r.maxStart[i] = max(ms, t.Start)
	if r.succ[i] != 0 { // linked to before it was
		r.frontier = append(r.frontier, i)
	}
}

// chains walks what is left of the chains: from each transaction of the
// frontier, through the transactions that were not settled, checking them
// as the settled ones were. A real-time violation anywhere, settled or
// not, makes it walk every chain again from its insert (chainsFrom) for
// the serial check's anomaly; histories seldom have one.
func (r *lwtRun) chains(ts []int32, n int) {
	txns, fl, succ := r.h.Txns, r.fl, r.succ
	for _, p := range r.frontier {
		if r.violated {
			break
		}
		maxStart := r.maxStart[p]
		for t := succ[p] - 1; t >= 0 && fl[t]&lwtChained == 0; t = succ[t] - 1 {
			fl[t] |= lwtChained
			if fl[t]&(lwtOK|lwtOps) == lwtOK|2 {
				r.out.chainedCAS++
			}
			tx := &txns[t]
			if tx.End != 0 && tx.End < maxStart {
				r.violated = true
			}
			maxStart = max(maxStart, tx.Start)
		}
	}
	if !r.violated {
		return
	}
	for j := range n {
		i := int32(j)
		if ts != nil {
			i = ts[j]
		}
		fl[i] &^= lwtChained
	}
	r.out.chainedCAS = 0
	r.chainsFrom()
}

// chainsFrom walks each insert's chain, counting the committed CASes on
// it and checking it for a real-time violation as it goes: there is one
// when a transaction ends before the latest start of those before it in
// the chain. Only then is the chain listed, for realTimeViolation to name
// the pair the serial check always named.
func (r *lwtRun) chainsFrom() {
	txns, fl, succ := r.h.Txns, r.fl, r.succ
	var chain []int32
	for _, ins := range r.inserts {
		maxStart, violated, length := int64(math.MinInt64), false, 0
		for t := ins; t >= 0 && fl[t]&lwtChained == 0; t = succ[t] - 1 {
			fl[t] |= lwtChained
			if fl[t]&(lwtOK|lwtOps) == lwtOK|2 {
				r.out.chainedCAS++
			}
			tx := &txns[t]
			if tx.End != 0 && tx.End < maxStart {
				violated = true
			}
			maxStart = max(maxStart, tx.Start)
			length++
		}
		if !violated {
			continue
		}
		chain = chain[:0]
		for t := ins; len(chain) < length; t = succ[t] - 1 {
			chain = append(chain, t)
		}
		if before, after, ok := realTimeViolation(r.h, chain); ok {
			r.add(1, ins, semantics.RealTimeViolation, []int32{before, after}, "%s", realTimeText(r.h, before, after))
		}
	}
}

package mt

import (
	"fmt"
	"math"
	mathbits "math/bits"
	"sync"

	"github.com/txlab/txlab/history"
)

// wtable is an open-addressing hash table from a written (key, value) to
// its writer's transaction index. Algorithm 2 is a probe per operation, so
// the table is kept small enough for the cache: a slot is 4 bytes, the
// writer's index + 1 in its low bits (as many as the history's length
// needs) and the rest of the slot a tag from the pair's hash, and a tag
// that matches is confirmed against the writer's own write op (the table
// holds no copy of the pair, which would make it five times larger).
type wtable struct {
	shift uint8    // 64 - log2(len(slots)): the slot is the hash's high bits
	idx   uint32   // the mask of the index bits
	slots []uint32 // tag | index+1; 0 = empty, so a fresh table needs no fill pass
}

// wtables keeps tables between checks (*[]uint32): a campaign checks many
// histories, and a fresh table is a large allocation to zero, and garbage.
var wtables sync.Pool

// newWtable returns a table for n writes, at most half full, by
// transactions with indexes below m; give it back with free.
func newWtable(n, m int) wtable {
	bits := uint8(4)
	for 1<<bits < 2*n {
		bits++
	}
	t := wtable{shift: 64 - bits, idx: 1<<mathbits.Len32(uint32(m)) - 1}
	if p, _ := wtables.Get().(*[]uint32); p != nil && cap(*p) >= 1<<bits {
		t.slots = (*p)[:1<<bits]
		clear(t.slots)
	} else {
		t.slots = make([]uint32, 1<<bits)
	}
	return t
}

// free gives the table back for a later check.
func (t *wtable) free() {
	s := t.slots
	t.slots = nil
	wtables.Put(&s)
}

// hashKV mixes a key and a value; the multiply's high bits (the slot) and
// low bits (the tag) are both spread by every bit of the pair.
func hashKV(k, v int64) uint64 {
	x := uint64(v) ^ uint64(k)*0x9E3779B97F4A7C15
	x ^= x >> 32
	return x * 0xC2B2AE3D27D4EB4F
}

// find returns the slot of (k, v) with hash hk and its writer, or the empty
// slot where it would go and -1. txns are the history's transactions,
// whose last op confirms a tag's match.
func (t *wtable) find(txns []ctxn, hk uint64, k, v int64) (uint64, int32) {
	mask := uint64(len(t.slots) - 1)
	for i := hk >> t.shift; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return i, -1
		}
		if (s^uint32(hk))&^t.idx == 0 {
			if at := int32(s&t.idx) - 1; writes(&txns[at], k, v) {
				return i, at
			}
		}
	}
}

// writes reports whether t's last op writes v to k.
func writes(t *ctxn, k, v int64) bool {
	w := t.Ops[len(t.Ops)-1]
	return w.Key == k && w.Value == v
}

// put stores (k, v) → idx and returns the pair's previous writer, or -1
// (and then stores nothing).
func (t *wtable) put(txns []ctxn, k, v int64, idx int32) int32 {
	hk := hashKV(k, v)
	i, prev := t.find(txns, hk, k, v)
	if prev < 0 {
		t.slots[i] = uint32(hk)&^t.idx | uint32(idx+1)
	}
	return prev
}

// get returns the writer of (k, v), or -1.
func (t *wtable) get(txns []ctxn, k, v int64) int32 {
	_, at := t.find(txns, hashKV(k, v), k, v)
	return at
}

// checkLWT is Algorithm 2, for all keys at once (linearizability is local):
// a key needs exactly one insert-if-not-exists (["w(k,v)"]); every
// compare-and-set (["r(k,old)","w(k,new)"]) must chain on the value the
// previous one wrote; and no transaction may start after a later
// transaction in its key's chain ended. Failed transactions are ignored (a
// failed CAS changed nothing); unknown ones count only if the chain reaches
// them. Instead of the paper's "find the CAS that read v" lookups, each CAS
// looks up the writer of the value it read once, and the chain follows the
// resulting successor array. It is checkLWTSplit with all keys in one part.
func checkLWT(h *chist) (*Result, error) { return checkLWTSplit(h, 1) }

// lwtShaped reports whether t is a lightweight transaction, or one that did
// nothing and did not commit.
func lwtShaped(t *ctxn) bool {
	switch len(t.Ops) {
	case 0:
		return t.Status != history.OK && !t.Init
	case 1:
		return t.Ops[0].Kind == history.W && !t.Init
	case 2:
		return t.Ops[0].Kind == history.R && t.Ops[1].Kind == history.W && t.Ops[0].Key == t.Ops[1].Key && !t.Init
	}
	return false
}

// lwtShapeError says why t, which is not lwtShaped, is refused.
func lwtShapeError(t *ctxn) error {
	if t.Init {
		return badInput("T%d: LWT histories have no init transaction; insert each key with an insert-if-not-exists", t.ID)
	}
	return badInput("T%d is not a lightweight transaction (want [w(k,v)] or [r(k,old), w(k,new)])", t.ID)
}

// lwtTwice is the error of a value written twice, by transactions a and b.
func lwtTwice(h *chist, a, b int32) error {
	w := h.Txns[b].Ops[len(h.Txns[b].Ops)-1]
	return badInput("value %d is written to key %d twice, by T%d and T%d", w.Value, w.Key, h.Txns[a].ID, h.Txns[b].ID)
}

// realTimeViolation finds, in a key's chain of values, a transaction that
// started after a transaction later in the chain had ended: scanning
// backwards, keeping the earliest end among the transactions after each
// one. It returns the first it meets from the end.
func realTimeViolation(h *chist, chain []int32) (before, after int32, ok bool) {
	minEnd, minAt := int64(math.MaxInt64), int32(-1)
	for i := len(chain) - 1; i >= 0; i-- {
		t := &h.Txns[chain[i]]
		if t.Start > minEnd {
			return chain[i], minAt, true
		}
		if t.End != 0 && t.End < minEnd {
			minEnd, minAt = t.End, chain[i]
		}
	}
	return 0, 0, false
}

// realTimeText explains a real-time violation.
func realTimeText(h *chist, before, after int32) string {
	t, a := &h.Txns[before], &h.Txns[after]
	return fmt.Sprintf("on key %d, T%d (%v) must take effect before T%d (%v), which comes later in the chain of values, yet T%d ended (at %d) before T%d started (at %d)",
		t.Ops[0].Key, t.ID, t.Ops, a.ID, a.Ops, a.ID, a.End, t.ID, t.Start)
}

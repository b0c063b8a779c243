package mt

import (
	"fmt"
	"math"

	"github.com/txlab/txlab/history"
)

// vtable is an open-addressing hash table from (key, value) to a
// transaction index. Algorithm 2 is one lookup per operation, so a Go map's
// overhead would dominate the check. Indexes are kept apart from the keys:
// a probe of an empty slot then touches only the small index array, which
// measured faster than one array of (key, value, index) slots.
type vtable struct {
	mask uint64
	keys []kv
	idx1 []int32 // index + 1; 0 = empty slot, so a fresh table needs no fill pass
}

func newVtable(n int) *vtable {
	size := uint64(16)
	for size < uint64(n)*2 {
		size <<= 1
	}
	return &vtable{mask: size - 1, keys: make([]kv, size), idx1: make([]int32, size)}
}

func (t *vtable) slot(k kv) uint64 {
	h := uint64(k.k)*0x9E3779B97F4A7C15 ^ uint64(k.v)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	i := h & t.mask
	for t.idx1[i] != 0 && t.keys[i] != k {
		i = (i + 1) & t.mask
	}
	return i
}

// put stores k → idx and returns the previous index, or -1.
func (t *vtable) put(k kv, idx int32) int32 {
	i := t.slot(k)
	prev := t.idx1[i] - 1
	t.keys[i], t.idx1[i] = k, idx+1
	return prev
}

func (t *vtable) get(k kv) int32 { return t.idx1[t.slot(k)] - 1 }

// checkLWT is Algorithm 2, for all keys at once (linearizability is local):
// a key needs exactly one insert-if-not-exists (["w(k,v)"]); every
// compare-and-set (["r(k,old)","w(k,new)"]) must chain on the value the
// previous one wrote; and no transaction may start after a later
// transaction in its key's chain ended. Failed transactions are ignored (a
// failed CAS changed nothing); unknown ones count only if the chain reaches
// them. Instead of the paper's "find the CAS that read v" lookups, each CAS
// looks up the writer of the value it read once, and the chain follows the
// resulting successor array. It is checkLWTSplit with all keys in one part.
func checkLWT(h *history.History) (*Result, error) { return checkLWTSplit(h, 1) }

// lwtShaped reports whether t is a lightweight transaction, or one that did
// nothing and did not commit.
func lwtShaped(t *history.Txn) bool {
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
func lwtShapeError(t *history.Txn) error {
	if t.Init {
		return badInput("T%d: LWT histories have no init transaction; insert each key with an insert-if-not-exists", t.ID)
	}
	return badInput("T%d is not a lightweight transaction (want [w(k,v)] or [r(k,old), w(k,new)])", t.ID)
}

// lwtTwice is the error of a value written twice, by transactions a and b.
func lwtTwice(h *history.History, a, b int32) error {
	w := h.Txns[b].Ops[len(h.Txns[b].Ops)-1]
	return badInput("value %d is written to key %d twice, by T%d and T%d", w.Value, w.Key, h.Txns[a].ID, h.Txns[b].ID)
}

// realTimeViolation finds, in a key's chain of values, a transaction that
// started after a transaction later in the chain had ended: scanning
// backwards, keeping the earliest end among the transactions after each
// one. It returns the first it meets from the end.
func realTimeViolation(h *history.History, chain []int32) (before, after int32, ok bool) {
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
func realTimeText(h *history.History, before, after int32) string {
	t, a := &h.Txns[before], &h.Txns[after]
	return fmt.Sprintf("on key %d, T%d (%v) must take effect before T%d (%v), which comes later in the chain of values, yet T%d ended (at %d) before T%d started (at %d)",
		t.Ops[0].Key, t.ID, t.Ops, a.ID, a.Ops, a.ID, a.End, t.ID, t.Start)
}

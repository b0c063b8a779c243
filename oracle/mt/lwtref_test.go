package mt

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
)

// This file keeps the LWT check as it was before the tagged table and the
// dense per-transaction arrays (commit 66e1b30), as the reference that
// TestLWTSameAsReference holds the new check to.

type refVtable struct {
	mask uint64
	keys []kv
	idx1 []int32
}

func newRefVtable(n int) *refVtable {
	size := uint64(16)
	for size < uint64(n)*2 {
		size <<= 1
	}
	return &refVtable{mask: size - 1, keys: make([]kv, size), idx1: make([]int32, size)}
}

func (t *refVtable) slot(k kv) uint64 {
	h := uint64(k.k)*0x9E3779B97F4A7C15 ^ uint64(k.v)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	i := h & t.mask
	for t.idx1[i] != 0 && t.keys[i] != k {
		i = (i + 1) & t.mask
	}
	return i
}

func (t *refVtable) put(k kv, idx int32) int32 {
	i := t.slot(k)
	prev := t.idx1[i] - 1
	t.keys[i], t.idx1[i] = k, idx+1
	return prev
}

func (t *refVtable) get(k kv) int32 { return t.idx1[t.slot(k)] - 1 }

func refCheckLWTSplit(h *chist, parts int) (*Result, error) {
	n := len(h.Txns)
	members := make([][]int32, parts)
	var part []uint8
	var count []int32
	var written *refVtable
	if parts > 1 {
		part, count = make([]uint8, n), make([]int32, parts)
	} else {
		members[0], written = make([]int32, 0, n), newRefVtable(n)
	}
	committedCAS := 0
	for i := range h.Txns {
		t := &h.Txns[i]
		if !lwtShaped(t) {
			if err := refFirstWrittenTwice(h, i); err != nil {
				return nil, err
			}
			return nil, lwtShapeError(t)
		}
		if len(t.Ops) == 0 {
			if parts > 1 {
				part[i] = math.MaxUint8
			}
			continue
		}
		if len(t.Ops) == 2 && t.Status == history.OK {
			committedCAS++
		}
		if parts == 1 {
			members[0] = append(members[0], int32(i))
			w := t.Ops[len(t.Ops)-1]
			if prev := written.put(kv{w.Key, w.Value}, int32(i)); prev >= 0 {
				return nil, lwtTwice(h, prev, int32(i))
			}
			continue
		}
		k := uint64(t.Ops[0].Key) * 0x9E3779B97F4A7C15
		p := uint8((k >> 32) % uint64(parts))
		part[i] = p
		count[p]++
	}
	if parts > 1 {
		for p := range members {
			members[p] = make([]int32, 0, count[p])
		}
		for i, p := range part {
			if p != math.MaxUint8 {
				members[p] = append(members[p], int32(i))
			}
		}
	}
	out := make([]refLWTPart, parts)
	inChain, succ := make([]bool, n), make([]int32, n)
	each(parts, func(p int) { out[p] = refCheckLWTPart(h, members[p], written, succ, inChain) })

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
	chainedCAS := out[0].chainedCAS
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
	for i := 0; i < n && chainedCAS < committedCAS; i++ {
		t := &h.Txns[i]
		if !inChain[i] && t.Status == history.OK && len(t.Ops) == 2 && len(res.Anomalies) == 0 {
			res.Anomalies = append(res.Anomalies, Anomaly{Name: semantics.ThinAirRead, Txns: ix.refs(int32(i)),
				Explanation: fmt.Sprintf("T%d changed key %d from %d, a value that was never current", t.ID, t.Ops[0].Key, t.Ops[0].Value)})
		}
	}
	res.Valid = len(res.Anomalies) == 0
	return res, nil
}

func refFirstWrittenTwice(h *chist, end int) error {
	written := newRefVtable(end)
	for i := range end {
		t := &h.Txns[i]
		if len(t.Ops) == 0 {
			continue
		}
		w := t.Ops[len(t.Ops)-1]
		if prev := written.put(kv{w.Key, w.Value}, int32(i)); prev >= 0 {
			return lwtTwice(h, prev, int32(i))
		}
	}
	return nil
}

type refLWTPart struct {
	dup        [2]int32
	anomalies  []lwtAnomaly
	chainedCAS int
}

func refCheckLWTPart(h *chist, ts []int32, written *refVtable, succ []int32, inChain []bool) refLWTPart {
	out := refLWTPart{dup: [2]int32{-1, -1}}
	if written == nil {
		written = newRefVtable(len(ts))
		for _, i := range ts {
			t := &h.Txns[i]
			w := t.Ops[len(t.Ops)-1]
			if prev := written.put(kv{w.Key, w.Value}, i); prev >= 0 {
				out.dup = [2]int32{prev, i}
				return out
			}
		}
	}
	add := func(phase, at int32, name semantics.Anomaly, txns []int32, format string, a ...any) {
		if len(out.anomalies) < maxAnomalies {
			out.anomalies = append(out.anomalies, lwtAnomaly{phase: phase, at: at, name: name, txns: txns, text: fmt.Sprintf(format, a...)})
		}
	}
	for _, i := range ts {
		succ[i] = -1
	}
	insertOf := make(map[int64]int32)
	var inserts []int32
	for _, i := range ts {
		t := &h.Txns[i]
		if t.Status == history.Fail {
			continue
		}
		if len(t.Ops) == 1 {
			k := t.Ops[0].Key
			if p, ok := insertOf[k]; ok {
				if t.Status == history.OK && h.Txns[p].Status == history.OK {
					add(0, i, semantics.LostUpdate, []int32{p, i}, "T%d and T%d both inserted key %d: an insert-if-not-exists succeeded twice", h.Txns[p].ID, t.ID, k)
				}
				if h.Txns[p].Status == history.OK {
					continue
				}
			}
			insertOf[k] = i
			inserts = append(inserts, i)
			continue
		}
		r := t.Ops[0]
		p := written.get(kv{r.Key, r.Value})
		if p < 0 || h.Txns[p].Status == history.Fail {
			if t.Status == history.OK {
				add(0, i, semantics.ThinAirRead, []int32{i}, "T%d changed key %d from %d, a value no committed transaction wrote", t.ID, r.Key, r.Value)
			}
			continue
		}
		if q := succ[p]; q >= 0 {
			if t.Status == history.OK && h.Txns[q].Status == history.OK {
				add(0, i, semantics.LostUpdate, []int32{p, q, i}, "T%d and T%d both changed key %d from %d (written by T%d): one compare-and-set overwrote the other",
					h.Txns[q].ID, t.ID, r.Key, r.Value, h.Txns[p].ID)
				continue
			}
			if h.Txns[q].Status == history.OK {
				continue
			}
		}
		succ[p] = i
	}
	var chain []int32
	for _, ins := range inserts {
		chain = chain[:0]
		for t := ins; t >= 0 && !inChain[t]; t = succ[t] {
			inChain[t] = true
			chain = append(chain, t)
			if tx := &h.Txns[t]; tx.Status == history.OK && len(tx.Ops) == 2 {
				out.chainedCAS++
			}
		}
		if before, after, ok := realTimeViolation(h, chain); ok {
			add(1, ins, semantics.RealTimeViolation, []int32{before, after}, "%s", realTimeText(h, before, after))
		}
	}
	return out
}

// TestLWTSameAsReference: the LWT check, in one part and split into two to
// five, gives the reference check's result (anomalies, their order and
// texts) or error on 5,000 random histories corrupted every way corrupt
// knows, and more: transactions moved out of chain order (a CAS recorded
// before the writer of the value it read), empty and init transactions, CASes that
// read their own value, and writes whose (key, value) hashes exactly like
// another's (so the table must confirm a tag's match), over few keys or
// many, with values unique or shared by the keys.
func TestLWTSameAsReference(t *testing.T) {
	var seen lwtOutcomes
	for seed := range uint64(5000) {
		r := rand.New(rand.NewPCG(seed, 31))
		keys := 1 + r.IntN(9)
		if r.IntN(4) == 0 { // more keys than the cache of each key's last write has entries
			keys = 1 + r.IntN(600)
		}
		h := synthLWT(20+r.IntN(800), keys, 1+r.IntN(40), seed)
		if r.IntN(3) == 0 {
			perKeyValues(h)
		}
		for range r.IntN(8) {
			corruptMore(r, h)
		}
		for range r.IntN(3) { // an empty transaction that did not commit (corrupt needs ops)
			t := &h.Txns[r.IntN(len(h.Txns))]
			t.Ops, t.Status = nil, history.Status(1+r.IntN(2))
		}
		want, werr := refCheckLWTSplit(compact(h), 1)
		for parts := 1; parts <= 5; parts++ {
			got, gerr := checkLWTSplit(compact(h), parts)
			sameLWT(t, fmt.Sprintf("seed %d, reference and new in %d parts", seed, parts), want, werr, got, gerr)
		}
		seen.add(want, werr)
	}
	seen.cover(t, 300, 1000, 200)
}

// perKeyValues renumbers each key's values 1, 2, … (synthLWT's are unique
// across keys), so that keys share values.
func perKeyValues(h *history.History) {
	renum, next := map[kv]int64{}, map[int64]int64{}
	for i := range h.Txns {
		for j := range h.Txns[i].Ops {
			o := &h.Txns[i].Ops[j]
			v, ok := renum[kv{o.Key, o.Value}]
			if !ok {
				next[o.Key]++
				v = next[o.Key]
				renum[kv{o.Key, o.Value}] = v
			}
			o.Value = v
		}
	}
}

// corruptMore is corrupt, or one of the changes it does not make.
func corruptMore(r *rand.Rand, h *history.History) {
	i, j := r.IntN(len(h.Txns)), r.IntN(len(h.Txns))
	t := &h.Txns[i]
	switch r.IntN(12) {
	case 0: // out of chain order
		h.Txns[i], h.Txns[j] = h.Txns[j], h.Txns[i]
	case 2: // a CAS that reads the value it writes
		if len(t.Ops) == 2 {
			t.Ops[0].Value = t.Ops[1].Value
		}
	case 3: // a write hashed exactly like another's: v ^ k*C is the same
		u := &h.Txns[j]
		if len(t.Ops) > 0 && len(u.Ops) > 0 && i != j {
			w, x := &t.Ops[len(t.Ops)-1], u.Ops[len(u.Ops)-1]
			k := x.Key + 1 + int64(r.IntN(3))
			w.Key, w.Value = k, int64(uint64(x.Value)^uint64(x.Key)*0x9E3779B97F4A7C15^uint64(k)*0x9E3779B97F4A7C15)
			if len(t.Ops) == 2 {
				t.Ops[0].Key = k
			}
		}
	case 4: // an init transaction, which LWT histories do not have
		if r.IntN(4) == 0 {
			t.Init = true
		}
	default:
		corrupt(r, h)
	}
}

package mt

import (
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/txlab/txlab/history"
)

// parallelMin is the fewest transactions worth splitting across cores: below
// it the goroutines cost more than they save. A variable so that tests can
// cut small histories into chunks.
var parallelMin = 1 << 15

// workers returns how many goroutines split n transactions.
func workers(n int) int {
	if n < parallelMin {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n/(parallelMin/2)))
}

// each runs f(c) for c in [0, n) on its own goroutine and waits.
func each(n int, f func(c int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for c := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(c)
		}()
	}
	wg.Wait()
}

// indexParallel is index for a history whose shape is valid, on every core:
// the history is cut into one chunk of transactions per core, each chunk is
// checked, counted and scattered into the hash join's partitions by its own
// goroutine (the positions come from per-chunk histograms, so each partition
// still holds its occurrences in history order), and the partitions are
// matched in parallel. It reports ok = false, having built nothing
// reusable, when the history breaks an MT assumption or writes a value
// twice (index then runs the serial pass, which names the first problem),
// or when its keys and values span too wide a range to be packed into 8
// bytes (see packer; the serial pass then does the join on 16-byte pairs).
func indexParallel(h *history.History) (*indexed, bool) {
	n := len(h.Txns)
	nc := workers(n)
	ix := &indexed{h: h, included: make([]bool, n), init: -1}
	var initKeys *keySet
	for i := range h.Txns {
		if t := &h.Txns[i]; t.Init {
			ix.init = int32(i)
			var ok bool
			if initKeys, ok = newKeySet(t.Ops); !ok {
				return nil, false
			}
		}
	}
	lo := func(c int) int { return n * c / nc }

	// Pass 1: shapes, known keys, and each chunk's op and write counts.
	type counts struct {
		ops, writes int32
		bad         bool
		unknown     bool
		rng         packRange
	}
	cnt := make([]counts, nc)
	each(nc, func(c int) {
		k := counts{rng: emptyRange}
		for i := lo(c); i < lo(c+1); i++ {
			t := &h.Txns[i]
			if !t.Init && checkShape(t) != nil {
				k.bad = true
				break
			}
			for _, o := range t.Ops {
				if initKeys != nil && !initKeys.has(o.Key) {
					k.bad = true
					break
				}
				if o.Kind == history.W {
					k.writes++
				}
				k.rng.add(o)
			}
			k.ops += int32(len(t.Ops))
			k.unknown = k.unknown || t.Status == history.Unknown
		}
		cnt[c] = k
	})
	opBase, wBase := make([]int32, nc+1), make([]int32, nc+1)
	anyUnknown := false
	rng := emptyRange
	for c, k := range cnt {
		if k.bad {
			return nil, false
		}
		opBase[c+1], wBase[c+1] = opBase[c]+k.ops, wBase[c]+k.writes
		anyUnknown = anyUnknown || k.unknown
		rng.merge(k.rng)
	}
	pk, ok := rng.packer()
	if !ok {
		return nil, false
	}
	nw, nops := int(wBase[nc]), int(opBase[nc])
	bits := 0
	for nw>>bits > partitionWrites {
		bits++
	}
	shift := uint(64 - bits)
	np := 1 << bits

	// Pass 2: op offsets, write refs, inclusion, and per-chunk partition
	// histograms.
	ix.opOff = make([]int32, n+1)
	ix.wrefs = make([]wref, nw)
	ix.readOf = make([]int32, nops)
	wHist, rHist := make([][]int32, nc), make([][]int32, nc)
	each(nc, func(c int) {
		wh, rh := make([]int32, np), make([]int32, np)
		off, w := opBase[c], wBase[c]
		for i := lo(c); i < lo(c+1); i++ {
			t := &h.Txns[i]
			ix.opOff[i] = off
			var last map[int64]int
			if len(t.Ops) > smallTxn {
				last = lastWrites(t.Ops)
			}
			for j, o := range t.Ops {
				ix.readOf[off+int32(j)] = -1
				p := mix64(pk.pack(o)) >> shift
				if o.Kind != history.W {
					rh[p]++
					continue
				}
				wh[p]++
				ix.wrefs[w] = wref{int32(i), int32(j), isFinal(t.Ops, j, last)}
				w++
			}
			off += int32(len(t.Ops))
			ix.included[i] = t.Status == history.OK
		}
		wHist[c], rHist[c] = wh, rh
	})
	ix.opOff[n] = int32(nops)

	// Where each chunk's occurrences of each partition go: partitions in
	// order, chunks in order within a partition.
	wOff, rOff := make([]int32, np+1), make([]int32, np+1)
	wPos, rPos := make([][]int32, nc), make([][]int32, nc)
	for c := range nc {
		wPos[c], rPos[c] = make([]int32, np), make([]int32, np)
	}
	var wAt, rAt int32
	for p := range np {
		wOff[p], rOff[p] = wAt, rAt
		for c := range nc {
			wPos[c][p], rPos[c][p] = wAt, rAt
			wAt += wHist[c][p]
			rAt += rHist[c][p]
		}
	}
	wOff[np], rOff[np] = wAt, rAt

	// Pass 3: scatter. An occurrence is its packed (key, value) and, in a
	// parallel array, its index: 12 bytes instead of a 24-byte struct (a
	// 16-byte pair and an int32, padded).
	ws, rs := packedOccs{make([]uint64, nw), make([]int32, nw)}, packedOccs{make([]uint64, nops-nw), make([]int32, nops-nw)}
	each(nc, func(c int) {
		wp, rp := wPos[c], rPos[c]
		off, w := opBase[c], wBase[c]
		for i := lo(c); i < lo(c+1); i++ {
			for j, o := range h.Txns[i].Ops {
				k := pk.pack(o)
				p := mix64(k) >> shift
				if o.Kind != history.W {
					rs.kv[rp[p]], rs.idx[rp[p]] = k, off+int32(j)
					rp[p]++
					continue
				}
				ws.kv[wp[p]], ws.idx[wp[p]] = k, w
				wp[p]++
				w++
			}
			off += int32(len(h.Txns[i].Ops))
		}
	})

	// Pass 4: match the partitions, each worker with its own table.
	nm := min(nc, np)
	dup := make([]bool, nm)
	each(nm, func(m int) {
		table, mask := joinTable(wOff)
		for p := np * m / nm; p < np*(m+1)/nm; p++ {
			if !ix.matchPacked(table, mask, ws.slice(wOff[p], wOff[p+1]), rs.slice(rOff[p], rOff[p+1])) {
				dup[m] = true
				return
			}
		}
	})
	for _, d := range dup {
		if d {
			return nil, false
		}
	}
	if anyUnknown {
		ix.observeUnknown()
	}
	return ix, true
}

// packRange is the range of the keys and of the values of a history's
// operations.
type packRange struct{ kmin, kmax, vmin, vmax int64 }

var emptyRange = packRange{math.MaxInt64, math.MinInt64, math.MaxInt64, math.MinInt64}

func (r *packRange) add(o history.Op) {
	r.kmin, r.kmax = min(r.kmin, o.Key), max(r.kmax, o.Key)
	r.vmin, r.vmax = min(r.vmin, o.Value), max(r.vmax, o.Value)
}

func (r *packRange) merge(s packRange) {
	r.kmin, r.kmax = min(r.kmin, s.kmin), max(r.kmax, s.kmax)
	r.vmin, r.vmax = min(r.vmin, s.vmin), max(r.vmax, s.vmax)
}

// packer maps a (key, value) pair one-to-one to a uint64: the key's offset
// from the smallest key above the value's offset from the smallest value.
// It exists when the two offsets' bit lengths add up to at most 64 — in
// practice always (txlab's workload writes small keys and values of a
// session number over a 32-bit counter) — and halves the hash join's
// copies of the pairs.
type packer struct {
	kmin, vmin uint64
	vbits      uint
}

func (r packRange) packer() (packer, bool) {
	if r.kmin > r.kmax { // no operations
		return packer{}, true
	}
	// Unsigned differences: exact for any two int64s.
	kb := bits.Len64(uint64(r.kmax) - uint64(r.kmin))
	vb := bits.Len64(uint64(r.vmax) - uint64(r.vmin))
	return packer{uint64(r.kmin), uint64(r.vmin), uint(vb)}, kb+vb <= 64
}

func (p packer) pack(o history.Op) uint64 {
	return (uint64(o.Key)-p.kmin)<<p.vbits | (uint64(o.Value) - p.vmin)
}

// mix64 hashes a packed pair: the top bits (the partition) are a Fibonacci
// hash, the low bits (the slot in a partition's table) mix in the high
// half of the product.
func mix64(x uint64) uint64 {
	x *= 0x9E3779B97F4A7C15
	return x ^ x>>32
}

// packedOccs are occurrences of packed pairs: writes (idx indexes wrefs)
// or reads (idx is the flat op index), as two parallel arrays.
type packedOccs struct {
	kv  []uint64
	idx []int32
}

func (o packedOccs) slice(lo, hi int32) packedOccs { return packedOccs{o.kv[lo:hi], o.idx[lo:hi]} }

// matchPacked is matchPartition for packed occurrences. It reports false,
// at the first value written twice, without naming it (the serial pass
// does).
func (ix *indexed) matchPacked(table []int32, mask uint64, ws, rs packedOccs) bool {
	clear(table)
	for x, k := range ws.kv {
		i := mix64(k) & mask
		for table[i] != 0 {
			if ws.kv[table[i]-1] == k {
				return false
			}
			i = (i + 1) & mask
		}
		table[i] = int32(x) + 1
	}
	for y, k := range rs.kv {
		i := mix64(k) & mask
		for t := table[i]; t != 0; t = table[i] {
			if ws.kv[t-1] == k {
				ix.readOf[rs.idx[y]] = ws.idx[t-1]
				break
			}
			i = (i + 1) & mask
		}
	}
	return true
}

// keySet holds the initial transaction's keys: a bitmap when they span a
// small range (the usual 0…keys-1), else a map.
type keySet struct {
	lo   int64
	bits []uint64
	m    map[int64]bool
}

// newKeySet collects the keys of the initial transaction's writes; ok is
// false if it has a read (index reports it).
func newKeySet(ops []history.Op) (*keySet, bool) {
	if len(ops) == 0 {
		return &keySet{m: map[int64]bool{}}, true
	}
	lo, hi := ops[0].Key, ops[0].Key
	for _, o := range ops {
		if o.Kind != history.W {
			return nil, false
		}
		lo, hi = min(lo, o.Key), max(hi, o.Key)
	}
	s := &keySet{lo: lo}
	if span := uint64(hi - lo); hi-lo >= 0 && span < 1<<26 {
		s.bits = make([]uint64, span/64+1)
		for _, o := range ops {
			d := uint64(o.Key - lo)
			s.bits[d/64] |= 1 << (d % 64)
		}
		return s, true
	}
	s.m = make(map[int64]bool, len(ops))
	for _, o := range ops {
		s.m[o.Key] = true
	}
	return s, true
}

func (s *keySet) has(k int64) bool {
	if s.bits == nil {
		return s.m[k]
	}
	d := uint64(k - s.lo)
	return k >= s.lo && d/64 < uint64(len(s.bits)) && s.bits[d/64]&(1<<(d%64)) != 0
}

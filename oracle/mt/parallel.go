package mt

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/internal/crash"
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
			// No error to hand a panic to: the process ends with one line.
			defer crash.Exit()
			defer wg.Done()
			f(c)
		}()
	}
	wg.Wait()
}

// indexParallel is index for a history whose shape is valid, on every core,
// in two passes over the history. The history is cut into one chunk of
// transactions per core. First each chunk checks shapes, counts its
// operations and writes, and makes histograms of its writes and reads over
// the hash join's partitions; then, from the counts and histograms of the
// chunks before it, each writes its offsets, write refs and inclusion and
// scatters its occurrences into the partitions (so each partition still
// holds them in history order); then the partitions are matched in
// parallel. It reports ok = false, having built nothing reusable, when the
// history breaks an MT assumption or writes a value twice (index then runs
// the serial pass, which names the first problem), or when its keys and
// values span too wide a range to be packed into 8 bytes (see packer; the
// serial pass then does the join on 16-byte pairs).
func indexParallel(h *chist) (*indexed, bool) {
	n := len(h.Txns)
	nc := workers(n)
	ix := &indexed{h: h, included: make([]bool, n), init: -1}
	cut := make([]int, nc+1) // chunk c is transactions cut[c] ≤ i < cut[c+1]
	for c := range cut {
		cut[c] = n * c / nc
	}
	// The partitions are chosen before the writes are counted, for an upper
	// bound of two writes a transaction (Definition 8) — pass 1 makes the
	// histograms. An initial transaction of many more writes than that
	// makes partitions too large for the cache: then they are counted
	// again (partitionHistograms).
	bits := partitionBits(2 * n)
	cnt := countChunks(h, cut, bits)
	opBase, wBase, rng, anyUnknown, ok := ix.sumCounts(cnt)
	if !ok {
		return nil, false
	}
	var initKeys *keySet
	if ix.init >= 0 {
		initKeys, _ = newKeySet(h.Txns[ix.init].Ops)
	}
	pk, ok := rng.packer()
	if !ok {
		return nil, false
	}
	nw, nops := int(wBase[nc]), int(opBase[nc])
	wHist, rHist := make([][]int32, nc), make([][]int32, nc)
	for c, k := range cnt {
		wHist[c], rHist[c] = k.wHist, k.rHist
	}
	if b := partitionBits(nw); b > bits+1 {
		bits = b
		ix.partitionHistograms(cut, bits, wHist, rHist)
	}
	np := 1 << bits
	wOff, rOff := partitionOffsets(wHist, rHist, np)

	// Pass 2: known keys, op offsets, write refs, inclusion, and the
	// scatter. An occurrence is its packed (key, value) and its index: 12
	// bytes instead of a 24-byte struct (a 16-byte pair and an int32,
	// padded).
	ix.opOff = make([]int32, n+1)
	ix.wrefs = newWriteRefs(nw)
	ix.readOf = make([]int32, nops)
	ws, rs := make([]packedOcc, nw), make([]packedOcc, nops-nw)
	sc := scatter{cut: cut, opBase: opBase, wBase: wBase, wHist: wHist, rHist: rHist, initKeys: initKeys, pk: pk, shift: uint(64 - bits), ws: ws, rs: rs}
	if !ix.scatter(sc) {
		return nil, false
	}
	ix.opOff[n] = int32(nops)
	if !ix.matchPartitions(min(nc, np), np, wOff, rOff, ws, rs) {
		return nil, false
	}
	if anyUnknown {
		ix.observeUnknown()
	}
	return ix, true
}

// chunkCounts is what pass 1 learns of one chunk of transactions.
type chunkCounts struct {
	ops, writes  int32
	bad, unknown bool
	init         int32 // the chunk's last initial transaction, or -1
	rng          packRange
	sessions     sessionSpan // for sessionNext, while the Txns are read
	wHist, rHist []int32
}

// countChunks is pass 1, a worker per chunk: shapes, counts, key and value
// ranges, the last initial transaction, histograms of 1<<bits partitions.
func countChunks(h *chist, cut []int, bits int) []chunkCounts {
	nc := len(cut) - 1
	cnt := make([]chunkCounts, nc)
	each(nc, func(c int) {
		k := chunkCounts{init: -1, rng: emptyRange, sessions: emptySpan}
		k.wHist, k.rHist = make([]int32, 1<<bits), make([]int32, 1<<bits)
		shift := uint(64 - bits)
		for i := cut[c]; i < cut[c+1]; i++ {
			t := &h.Txns[i]
			if t.Init {
				// Writes only (index names a read); the last initial
				// transaction names the keys, as in indexSerial.
				k.init = int32(i)
				for _, o := range t.Ops {
					k.bad = k.bad || o.Kind != history.W
				}
			} else if checkShape(t) != nil {
				k.bad = true
				break
			}
			for _, o := range t.Ops {
				p := mix(kv{o.Key, o.Value}) >> shift
				if o.Kind == history.W {
					k.writes++
					k.wHist[p]++
				} else {
					k.rHist[p]++
				}
				k.rng.add(o)
			}
			k.ops += int32(len(t.Ops))
			k.unknown = k.unknown || t.Status == history.Unknown
			k.sessions.add(t.Session)
		}
		cnt[c] = k
	})
	return cnt
}

// sumCounts joins the chunks' counts: each chunk's first op and write,
// the key and value range, whether any transaction is unknown; it sets the
// last initial transaction and the session span. ok is false when a chunk
// holds a transaction of a shape the check does not take.
func (ix *indexed) sumCounts(cnt []chunkCounts) (opBase, wBase []int32, rng packRange, anyUnknown, ok bool) {
	nc := len(cnt)
	opBase, wBase = make([]int32, nc+1), make([]int32, nc+1)
	rng = emptyRange
	for c, k := range cnt {
		if k.bad {
			return nil, nil, rng, false, false
		}
		opBase[c+1], wBase[c+1] = opBase[c]+k.ops, wBase[c]+k.writes
		anyUnknown = anyUnknown || k.unknown
		rng.merge(k.rng)
		ix.init = max(ix.init, k.init)
	}
	ix.sessions = emptySpan
	for _, k := range cnt {
		ix.sessions.merge(k.sessions)
	}
	ix.sessions.known = true
	return opBase, wBase, rng, anyUnknown, true
}

// partitionOffsets turns the chunks' histograms into where each chunk's
// occurrences of each partition go: partitions in order, chunks in order
// within a partition. The histograms become each chunk's next slot.
func partitionOffsets(wHist, rHist [][]int32, np int) (wOff, rOff []int32) {
	wOff, rOff = make([]int32, np+1), make([]int32, np+1)
	var wAt, rAt int32
	for p := range np {
		wOff[p], rOff[p] = wAt, rAt
		for c := range wHist {
			w, r := wHist[c][p], rHist[c][p]
			wHist[c][p], rHist[c][p] = wAt, rAt
			wAt += w
			rAt += r
		}
	}
	wOff[np], rOff[np] = wAt, rAt
	return wOff, rOff
}

// scatter is what pass 2 reads.
type scatter struct {
	cut           []int
	opBase, wBase []int32
	wHist, rHist  [][]int32 // each chunk's next slot per partition
	initKeys      *keySet
	pk            packer
	shift         uint
	ws, rs        []packedOcc
}

// scatter is pass 2, a worker per chunk. It reports false when an op names
// a key the initial transaction did not write.
func (ix *indexed) scatter(sc scatter) bool {
	h := ix.h
	nc := len(sc.cut) - 1
	unknownKey := make([]bool, nc)
	each(nc, func(c int) {
		wp, rp := sc.wHist[c], sc.rHist[c]
		off, w := sc.opBase[c], sc.wBase[c]
		for i := sc.cut[c]; i < sc.cut[c+1]; i++ {
			t := &h.Txns[i]
			ix.opOff[i] = off
			var final []bool
			if len(t.Ops) > smallTxn {
				final = finalWrites(t.Ops)
			}
			for j, o := range t.Ops {
				if sc.initKeys != nil && !sc.initKeys.has(o.Key) {
					unknownKey[c] = true
					return
				}
				ix.readOf[off+int32(j)] = -1
				p := mix(kv{o.Key, o.Value}) >> sc.shift
				k := sc.pk.pack(o)
				if o.Kind != history.W {
					sc.rs[rp[p]] = newPackedOcc(k, off+int32(j))
					rp[p]++
					continue
				}
				sc.ws[wp[p]] = newPackedOcc(k, w)
				wp[p]++
				ix.wrefs.set(w, wref{int32(i), int32(j), isFinal(t.Ops, j, final)})
				w++
			}
			off += int32(len(t.Ops))
			ix.included[i] = t.Status == history.OK
		}
	})
	return !slices.Contains(unknownKey, true)
}

// matchPartitions is pass 3 (not over the history): nm workers match the
// partitions, each with its own table. It reports false on a duplicate
// write.
func (ix *indexed) matchPartitions(nm, np int, wOff, rOff []int32, ws, rs []packedOcc) bool {
	dup := make([]bool, nm)
	each(nm, func(m int) {
		table, mask := joinTable(wOff)
		for p := np * m / nm; p < np*(m+1)/nm; p++ {
			if !ix.matchPacked(table, mask, ws[wOff[p]:wOff[p+1]], rs[rOff[p]:rOff[p+1]]) {
				dup[m] = true
				return
			}
		}
	})
	return !slices.Contains(dup, true)
}

// partitionBits returns the bits of hash that cut nw writes into
// partitions of at most partitionWrites on average.
func partitionBits(nw int) int {
	bits := 0
	for nw>>bits > partitionWrites {
		bits++
	}
	return bits
}

// partitionHistograms counts each chunk's writes and reads per partition
// again, for 1<<bits partitions.
func (ix *indexed) partitionHistograms(cut []int, bits int, wHist, rHist [][]int32) {
	shift := uint(64 - bits)
	each(len(cut)-1, func(c int) {
		wh, rh := make([]int32, 1<<bits), make([]int32, 1<<bits)
		for i := cut[c]; i < cut[c+1]; i++ {
			for _, o := range ix.h.Txns[i].Ops {
				p := mix(kv{o.Key, o.Value}) >> shift
				if o.Kind == history.W {
					wh[p]++
				} else {
					rh[p]++
				}
			}
		}
		wHist[c], rHist[c] = wh, rh
	})
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
// It exists when the two offsets' bit lengths add up to at most 64 —
// txlab's workload writes values of a session number over a 32-bit
// counter, so its histories pack unless the session numbers (which grow
// on reconnects) and the keys need more than 32 bits together — and halves
// the hash join's copies of the pairs.
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

// packedOcc is an occurrence of a packed pair: a write (idx indexes
// wrefs) or a read (idx is its flat op index). The pair is two uint32
// halves, so that the struct is 12 bytes, unpadded: each partition of the
// scatter is then one stream of writes, not two.
type packedOcc struct {
	lo, hi uint32
	idx    int32
}

func newPackedOcc(k uint64, idx int32) packedOcc {
	return packedOcc{uint32(k), uint32(k >> 32), idx}
}

func (o *packedOcc) key() uint64 { return uint64(o.hi)<<32 | uint64(o.lo) }

// matchPacked is matchPartition for packed occurrences. It reports false,
// at the first value written twice, without naming it (the serial pass
// does).
func (ix *indexed) matchPacked(table []int32, mask uint64, ws, rs []packedOcc) bool {
	clear(table)
	for x := range ws {
		k := ws[x].key()
		i := mix64(k) & mask
		for table[i] != 0 {
			if ws[table[i]-1].key() == k {
				return false
			}
			i = (i + 1) & mask
		}
		table[i] = int32(x) + 1
	}
	for y := range rs {
		k := rs[y].key()
		i := mix64(k) & mask
		for t := table[i]; t != 0; t = table[i] {
			if w := &ws[t-1]; w.key() == k {
				ix.readOf[rs[y].idx] = w.idx
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

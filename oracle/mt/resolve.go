package mt

// occ is one occurrence of a (key, value) pair: a write (idx is its index
// in wrefs) or a read (idx is its flat op index).
type occ struct {
	kv
	idx int32
}

// partitionWrites bounds the writes per partition in resolve, so that a
// partition's hash table (2–4 int32 slots per write) and its writes stay in
// the L2 cache (at most about 200 KB here). Larger partitions are fewer:
// scattering into 256 rather than 512 per million writes is one write
// stream per partition less to keep open in the cache and TLB (8 % less
// CPU for the parallel index than 4096; 16384 and 32768 are no better).
const partitionWrites = 8192

func mix(k kv) uint64 {
	x := (uint64(k.k)*0x9E3779B97F4A7C15 ^ uint64(k.v)) * 0xC2B2AE3D27D4EB4F
	return x ^ x>>29
}

// resolve finds, for every read in rs, the write in wkv (the (key, value)
// of each of wrefs) of the same pair, and fills ix.readOf. It also finds
// values written twice: it returns the earliest write whose value was
// already written (second, an index into wrefs) and that earlier write
// (first), or -1, -1.
//
// One hash table over a million writes is far larger than the cache, and
// every insert and lookup would be a cache (and TLB) miss. So this is a
// radix-partitioned hash join: writes and reads are first scattered by the
// top bits of their hash into partitions (sequential passes), then each
// partition is matched with a small table that stays in cache.
func (ix *indexed) resolve(wkv []kv, reads []occ) (first, second int32) {
	nw, nr := len(wkv), len(reads)
	bits := 0
	for nw>>bits > partitionWrites {
		bits++
	}
	shift := uint(64 - bits) // 64 when bits = 0: every hash shifts to 0
	np := 1 << bits

	// Counting sort of both sides by partition; stable, so each partition
	// holds its writes in history order (the first duplicate found in a
	// partition is that partition's earliest).
	wOff, rOff := make([]int32, np+1), make([]int32, np+1)
	for _, k := range wkv {
		wOff[mix(k)>>shift+1]++
	}
	for _, r := range reads {
		rOff[mix(r.kv)>>shift+1]++
	}
	for p := range np {
		wOff[p+1] += wOff[p]
		rOff[p+1] += rOff[p]
	}
	ws, rs := make([]occ, nw), make([]occ, nr)
	pos := make([]int32, np)
	copy(pos, wOff[:np])
	for wi, k := range wkv {
		p := mix(k) >> shift
		ws[pos[p]] = occ{k, int32(wi)}
		pos[p]++
	}
	copy(pos, rOff[:np])
	for _, r := range reads {
		p := mix(r.kv) >> shift
		rs[pos[p]] = r
		pos[p]++
	}
	ix.readOf = make([]int32, ix.opOff[len(ix.h.Txns)])
	for i := range ix.readOf {
		ix.readOf[i] = -1
	}

	table, mask := joinTable(wOff)
	first, second = -1, -1
	for p := range np {
		f, sec := ix.matchPartition(table, mask, ws[wOff[p]:wOff[p+1]], rs[rOff[p]:rOff[p+1]])
		if sec >= 0 && (second < 0 || sec < second) {
			first, second = f, sec
		}
	}
	return first, second
}

// joinTable returns a hash table for matchPartition, sized for the largest
// partition of wOff at load ≤ 1/2, and its mask.
func joinTable(wOff []int32) ([]int32, uint64) {
	largest := int32(0)
	for p := range len(wOff) - 1 {
		largest = max(largest, wOff[p+1]-wOff[p])
	}
	size := 16
	for size < int(largest)*2 {
		size <<= 1
	}
	return make([]int32, size), uint64(size - 1)
}

// matchPartition matches one partition of the hash join: it sets
// ix.readOf for each read in rs whose (key, value) a write in ws has. The
// table holds positions in ws plus one (0 = empty). ws is in history order,
// so the first value found written twice is the partition's earliest: it
// returns that write's index (second) and the earlier write's (first), and
// stops; -1, -1 when every value is written once.
func (ix *indexed) matchPartition(table []int32, mask uint64, ws, rs []occ) (first, second int32) {
	clear(table)
	for x := range ws {
		i := mix(ws[x].kv) & mask
		for table[i] != 0 && ws[table[i]-1].kv != ws[x].kv {
			i = (i + 1) & mask
		}
		if table[i] != 0 {
			return ws[table[i]-1].idx, ws[x].idx
		}
		table[i] = int32(x) + 1
	}
	for _, r := range rs {
		i := mix(r.kv) & mask
		for table[i] != 0 {
			if w := &ws[table[i]-1]; w.kv == r.kv {
				ix.readOf[r.idx] = w.idx
				break
			}
			i = (i + 1) & mask
		}
	}
	return -1, -1
}

package workload

import (
	"math/rand/v2"
)

// keyPicker draws keys 1..n from one distribution with one session's
// random source.
type keyPicker struct {
	r    *rand.Rand
	n    int64
	dist Distribution
	zipf *rand.Zipf
}

func newKeyPicker(r *rand.Rand, n int, d Distribution) *keyPicker {
	p := &keyPicker{r: r, n: int64(n), dist: d}
	if d == Zipfian && n > 1 {
		// s must exceed 1 for math/rand's sampler; 1.1 is close to the
		// YCSB constant 0.99 the MTC generator inherits.
		p.zipf = rand.NewZipf(r, 1.1, 1, uint64(n-1))
	}
	return p
}

// pick returns a key in 1..n.
func (p *keyPicker) pick() int64 {
	if p.n == 1 {
		return 1
	}
	switch p.dist {
	case Zipfian:
		return int64(p.zipf.Uint64()) + 1
	case Hotspot:
		hot := max(p.n/5, 1)
		if p.r.Float64() < 0.8 {
			return p.r.Int64N(hot) + 1
		}
		return p.r.Int64N(p.n) + 1
	case Exponential:
		// Rejection keeps the shape: the tail beyond n is redrawn, not
		// folded onto the last key.
		for {
			if i := int64(p.r.ExpFloat64() * float64(p.n) / 4); i < p.n {
				return i + 1
			}
		}
	}
	return p.r.Int64N(p.n) + 1
}

// pickOther returns a key other than k (n > 1). A skewed distribution may
// return the same hot key many times, so after a few tries it takes a
// uniform one.
func (p *keyPicker) pickOther(k int64) int64 {
	for range 8 {
		if o := p.pick(); o != k {
			return o
		}
	}
	o := p.r.Int64N(p.n-1) + 1
	if o >= k {
		o++
	}
	return o
}

// step is one planned operation of an MT.
type step struct {
	write bool
	key   int64
}

// plan draws one MT per Definition 8: one or two reads of distinct keys,
// at most two writes, each write after the read of its key. Read-write MTs
// write at least one key, and their reads come either each before its
// write (r a, w a, r b, w b) or all first (r a, r b, w a, w b): the second
// order is what write skew needs, the first what lost update needs.
func (p *keyPicker) plan(readOnlyRatio float64, buf []step) []step {
	steps := buf[:0]
	a := p.pick()
	keys := []int64{a}
	if p.n > 1 && p.r.IntN(2) == 0 {
		keys = append(keys, p.pickOther(a))
	}
	if p.r.Float64() < readOnlyRatio {
		for _, k := range keys {
			steps = append(steps, step{key: k})
		}
		return steps
	}
	writes := make([]bool, len(keys))
	any := false
	for i := range writes {
		writes[i] = p.r.IntN(2) == 0
		any = any || writes[i]
	}
	if !any {
		writes[p.r.IntN(len(keys))] = true
	}
	if len(keys) == 2 && p.r.IntN(2) == 0 {
		steps = append(steps, step{key: keys[0]}, step{key: keys[1]})
		for i, k := range keys {
			if writes[i] {
				steps = append(steps, step{write: true, key: k})
			}
		}
		return steps
	}
	for i, k := range keys {
		steps = append(steps, step{key: k})
		if writes[i] {
			steps = append(steps, step{write: true, key: k})
		}
	}
	return steps
}

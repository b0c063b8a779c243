package mt

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/txlab/txlab/history"
)

// TestLWTParallelSameAsSerial: the check split by key gives the serial
// check's result, anomaly for anomaly and in order, on valid histories and
// on histories corrupted every way an LWT history can be wrong (a lost
// update, a value from thin air, a real-time inversion, a double insert, a
// value written twice, failed and unknown transactions, a bad shape).
func TestLWTParallelSameAsSerial(t *testing.T) {
	defer func(n int) { lwtParallelMin = n }(lwtParallelMin)
	lwtParallelMin = 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var seen lwtOutcomes
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		h := synthLWT(50+r.IntN(400), 1+r.IntN(9), 1+r.IntN(40), seed)
		for range r.IntN(6) {
			corrupt(r, h)
		}
		want, werr := checkLWT(compact(h))
		got, gerr := checkLWTParallel(compact(h))
		sameLWT(t, fmt.Sprintf("seed %d, serial and parallel", seed), want, werr, got, gerr)
		seen.add(want, werr)
	}
	seen.cover(t, 20, 20, 5)
}

// lwtOutcomes counts the outcomes of the histories two LWT checks were
// compared on, so that a comparison can show it covered every outcome.
type lwtOutcomes struct{ valid, invalid, bad int }

// add counts the outcome of one history: its result, or the error that
// refused it.
func (o *lwtOutcomes) add(res *Result, err error) {
	switch {
	case err != nil:
		o.bad++
	case res.Valid:
		o.valid++
	default:
		o.invalid++
	}
}

// sameLWT fails the test unless two LWT checks (their names in what) gave
// the same result, anomaly for anomaly, or the same error.
func sameLWT(t *testing.T, what string, want *Result, werr error, got *Result, gerr error) {
	t.Helper()
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%s: errors differ: %v and %v", what, werr, gerr)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: results differ:\n%+v\n%+v", what, want, got)
	}
}

// cover fails the test if fewer histories than asked for came out valid,
// invalid or bad (refused).
func (o *lwtOutcomes) cover(t *testing.T, valid, invalid, bad int) {
	t.Helper()
	if o.valid < valid || o.invalid < invalid || o.bad < bad {
		t.Errorf("%d valid, %d invalid, %d bad histories: the corruptions do not cover every outcome", o.valid, o.invalid, o.bad)
	}
}

// corrupt changes one transaction of h at random.
func corrupt(r *rand.Rand, h *history.History) {
	i := r.IntN(len(h.Txns))
	t := &h.Txns[i]
	switch r.IntN(8) {
	case 0: // a lost update: read what another CAS read
		if j := r.IntN(len(h.Txns)); len(t.Ops) == 2 && len(h.Txns[j].Ops) == 2 && h.Txns[j].Ops[0].Key == t.Ops[0].Key {
			t.Ops[0].Value = h.Txns[j].Ops[0].Value
		}
	case 1: // thin air
		if len(t.Ops) == 2 {
			t.Ops[0].Value = -1 - int64(i)
		}
	case 2: // real time: move it far away
		t.Start, t.End = t.Start+100000, t.End+100000
	case 3:
		t.Status = history.Fail
	case 4:
		t.Status = history.Unknown
	case 5: // a second insert of the key
		t.Ops = []history.Op{{Kind: history.W, Key: t.Ops[len(t.Ops)-1].Key, Value: 1_000_000 + int64(i)}}
	case 6: // a value written twice
		if j := r.IntN(len(h.Txns)); h.Txns[j].Ops[len(h.Txns[j].Ops)-1].Key == t.Ops[len(t.Ops)-1].Key && j != i {
			t.Ops[len(t.Ops)-1].Value = h.Txns[j].Ops[len(h.Txns[j].Ops)-1].Value
		}
	case 7: // a bad shape, rarely
		if r.IntN(10) == 0 {
			t.Ops = append(t.Ops, history.Op{Kind: history.R, Key: 99, Value: 1})
		}
	}
}

// BenchmarkLWTSplit: the serial LWT check against the one split by key,
// on 1M operations over 64 keys; run with GOMAXPROCS=1, 4, 8, … (below
// lwtParallelCores the split check is the serial one; not -test.cpu, see
// BenchmarkVsPorcupine).
func BenchmarkLWTSplit(b *testing.B) {
	h := synthLWT(1_000_000, 64, 100, 1)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if res, err := checkLWT(compact(h)); err != nil || !res.Valid {
				b.Fatal("rejected")
			}
		}
	})
	b.Run("split", func(b *testing.B) {
		for b.Loop() {
			if res, err := checkLWTParallel(compact(h)); err != nil || !res.Valid {
				b.Fatal("rejected")
			}
		}
	})
}

// BenchmarkLWTKeys: the LWT check of 10k operations over 1 to 1,000 keys
// (each key's chain is the more spread over the history, and the table and
// the cache of each key's last write the less help, the more keys).
func BenchmarkLWTKeys(b *testing.B) {
	for _, keys := range []int{1, 8, 64, 1000} {
		h := synthLWT(10_000, keys, 4, 1)
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res, err := checkLWT(compact(h)); err != nil || !res.Valid {
					b.Fatal("rejected")
				}
			}
		})
	}
}

package mt

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/internal/cputime"
)

// BenchmarkCheck: synthetic valid histories and histories with an injected
// lost update, at 10k, 100k and 1M transactions (1000 keys, 64 sessions).
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		valid := synth(n, 1000, 64, 1)
		broken := synth(n, 1000, 64, 1)
		injectLostUpdate(broken)
		for _, m := range []Model{Serializable, Snapshot, StrictSerializable} {
			for _, c := range []struct {
				name string
				h    *history.History
				want bool
			}{{"valid", valid, true}, {"lost-update", broken, false}} {
				b.Run(fmt.Sprintf("%s/%s/%d", m, c.name, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						res, err := Check(c.h, m)
						if err != nil || res.Valid != c.want {
							b.Fatalf("valid=%v err=%v, want valid=%v", res != nil && res.Valid, err, c.want)
						}
					}
				})
			}
		}
	}
}

// synthLWT makes a linearizable LWT history: per key one insert, then
// compare-and-sets chained on the previous value, taking effect at time
// 10·i, each spanning an interval around that point wide enough that about
// `concurrency` operations overlap at any moment.
func synthLWT(n, keys, concurrency int, seed uint64) *history.History {
	r := rand.New(rand.NewPCG(seed, 9))
	h := &history.History{Txns: make([]history.Txn, 0, n)}
	cur := make([]int64, keys)
	next := int64(1)
	for i := 0; i < n; i++ {
		p := int64(i) * 10
		w := int64(concurrency) * 10
		t := history.Txn{ID: int64(i), Session: i % concurrency, Start: p - r.Int64N(w), End: p + 1 + r.Int64N(w)}
		k := int64(i % keys)
		if i < keys {
			t.Ops = []history.Op{{Kind: history.W, Key: k, Value: next}}
		} else {
			t.Ops = []history.Op{{Kind: history.R, Key: k, Value: cur[k]}, {Kind: history.W, Key: k, Value: next}}
		}
		cur[k] = next
		next++
		h.Txns = append(h.Txns, t)
	}
	return h
}

type casIn struct {
	key, old, new int64
	insert        bool
}

// lwtModel is the same LWT semantics for Porcupine: a register per key,
// absent (-1) until inserted; a CAS succeeds only on the expected value.
var lwtModel = porcupine.Model{
	Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
		by := map[int64][]porcupine.Operation{}
		var keys []int64
		for _, o := range ops {
			k := o.Input.(casIn).key
			if _, ok := by[k]; !ok {
				keys = append(keys, k)
			}
			by[k] = append(by[k], o)
		}
		out := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			out = append(out, by[k])
		}
		return out
	},
	Init: func() any { return int64(-1) },
	Step: func(state, input, output any) (bool, any) {
		s, in := state.(int64), input.(casIn)
		if in.insert {
			return s == -1, in.new
		}
		return s == in.old, in.new
	},
	Equal: func(a, b any) bool { return a == b },
}

func toPorcupine(h *history.History) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(h.Txns))
	for i, t := range h.Txns {
		in := casIn{key: t.Ops[0].Key, new: t.Ops[len(t.Ops)-1].Value, insert: len(t.Ops) == 1}
		if !in.insert {
			in.old = t.Ops[0].Value
		}
		ops[i] = porcupine.Operation{ClientId: t.Session, Input: in, Output: true, Call: t.Start, Return: t.End}
	}
	return ops
}

func TestLWTAgreesWithPorcupine(t *testing.T) {
	for _, c := range []int{1, 4, 16} {
		h := synthLWT(2000, 4, c, uint64(c))
		res, err := Check(h, Linearizable)
		if err != nil || !res.Valid {
			t.Fatalf("concurrency %d: txlab rejects a linearizable history: %v %+v", c, err, res)
		}
		if !porcupine.CheckOperations(lwtModel, toPorcupine(h)) {
			t.Fatalf("concurrency %d: porcupine rejects it", c)
		}
		// Swap two chained CASes' intervals far apart: now non-linearizable.
		a, z := &h.Txns[100], &h.Txns[1900]
		a.Start, a.End, z.Start, z.End = z.Start, z.End, a.Start, a.End
		res, _ = Check(h, Linearizable)
		if res.Valid || porcupine.CheckOperations(lwtModel, toPorcupine(h)) {
			t.Fatalf("concurrency %d: txlab valid=%v, porcupine should also reject", c, res.Valid)
		}
	}
}

// BenchmarkVsPorcupine checks the same LWT histories (10k operations, 8
// keys) with txlab's Algorithm 2 and with Porcupine, from 4 to 20,000
// concurrent sessions (at 20,000 every operation overlaps every other),
// txlab's check also with its pools emptied before each check;
// run with GOMAXPROCS=1 and =N (Porcupine checks the keys' partitions in
// parallel). Not with -test.cpu: a b.Loop benchmark runs whole in its
// first call, which -test.cpu does not govern (golang/go#49980).
func BenchmarkVsPorcupine(b *testing.B) {
	for _, c := range []int{4, 64, 1000, 5000, 20_000} {
		h := synthLWT(10_000, 8, c, uint64(c))
		ops := toPorcupine(h)
		name := fmt.Sprintf("sessions=%d", c)
		b.Run(name+"/txlab", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res, err := Check(h, Linearizable); err != nil || !res.Valid {
					b.Fatal("rejected")
				}
			}
		})
		// Fresh: the check's pooled table and arrays emptied before each
		// check (two collections empty a sync.Pool), as a campaign whose
		// rounds allocate between checks may see them.
		b.Run(name+"/txlab-fresh", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				runtime.GC()
				b.StartTimer()
				if res, err := Check(h, Linearizable); err != nil || !res.Valid {
					b.Fatal("rejected")
				}
			}
		})
		b.Run(name+"/porcupine", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !porcupine.CheckOperations(lwtModel, ops) {
					b.Fatal("rejected")
				}
			}
		})
	}
}

// BenchmarkHugeTransaction: 10k transactions after an initial transaction
// that writes 1M keys (fuzz --oracle mt --keys 1000000 makes such rounds).
func BenchmarkHugeTransaction(b *testing.B) {
	h := synth(10_000, 1_000_000, 64, 1)
	b.ReportAllocs()
	for b.Loop() {
		if res, err := Check(h, Serializable); err != nil || !res.Valid {
			b.Fatalf("valid=%v err=%v", res != nil && res.Valid, err)
		}
	}
}

// BenchmarkCheckScale: valid histories of 1M and 10M transactions (1000
// keys, 64 sessions), the cost per transaction reported as ns/txn and
// B/txn, and the process's CPU time per transaction (cpu-ns/txn: the
// garbage collector's included); run with GOMAXPROCS=1, 2, … (not
// -test.cpu, see BenchmarkVsPorcupine) for the scaling curve.
func BenchmarkCheckScale(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		var h *history.History
		for _, m := range []Model{Serializable, Snapshot, StrictSerializable} {
			b.Run(fmt.Sprintf("%s/%d", m, n), func(b *testing.B) {
				if h == nil {
					h = synth(n, 1000, 64, 1)
				}
				b.ReportAllocs()
				var cpu time.Duration
				for b.Loop() {
					start := cputime.Process()
					if res, err := Check(h, m); err != nil || !res.Valid {
						b.Fatalf("valid=%v err=%v", res != nil && res.Valid, err)
					}
					cpu += cputime.Process() - start
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/txn")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/txn")
			})
		}
	}
}

// BenchmarkIndex: the serial pass (the baseline, still used to name a
// broken history's first problem) and the parallel one on the same valid
// 1M-transaction history.
func BenchmarkIndex(b *testing.B) {
	h := compact(synth(1_000_000, 1000, 64, 1))
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := indexSerial(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := indexParallel(h); !ok {
				b.Fatal("gave up")
			}
		}
	})
}

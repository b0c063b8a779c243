package mt

import (
	"cmp"
	"math/bits"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/txlab/txlab/history"
)

// TestIndexParallelAgrees: on histories large enough to be cut into chunks
// (four, with GOMAXPROCS 4), the parallel index finds exactly what the
// serial one does — every read's writer, the write refs, the offsets and
// the included transactions (unknown outcomes observed or not) — and it
// gives up (for the serial pass to name the problem) on a bad shape, an
// unknown key and a value written twice.
func TestIndexParallelAgrees(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	valid := synth(100_000, 1000, 64, 3)
	broken := synth(100_000, 1000, 64, 3)
	injectLostUpdate(broken)
	unknown := synth(100_000, 1000, 64, 4)
	for i := 1; i < len(unknown.Txns); i += 7 {
		unknown.Txns[i].Status = history.Unknown
	}
	if workers(len(valid.Txns)) != 4 {
		t.Fatalf("%d workers, want 4", workers(len(valid.Txns)))
	}
	// An initial transaction of a million writes: the partitions chosen
	// for two writes a transaction are too large, and counted again.
	hugeInit := synth(100_000, 1_000_000, 64, 5)
	for name, h := range map[string]*history.History{"valid": valid, "lost-update": broken, "unknown": unknown, "huge initial transaction": hugeInit} {
		par, ok := indexParallel(compact(h))
		if !ok {
			t.Fatalf("%s: the parallel index gave up", name)
		}
		ser, err := indexSerial(compact(h))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(par.readOf, ser.readOf) || !reflect.DeepEqual(par.wrefs, ser.wrefs) ||
			!reflect.DeepEqual(par.opOff, ser.opOff) || !reflect.DeepEqual(par.included, ser.included) || par.init != ser.init {
			t.Errorf("%s: the parallel index differs from the serial one", name)
		}
		// The reads grouped by version, in parallel, are the serial reads
		// stably sorted by (writer, key), whether the read checks counted
		// them (as in Check) or not.
		fresh, _ := indexParallel(compact(h))
		par.readChecks(&Result{})
		var want []readRec
		par.eachReadIn(0, len(h.Txns), func(r readRec) { want = append(want, r) })
		slices.SortStableFunc(want, func(a, b readRec) int {
			if a.writer != b.writer {
				return cmp.Compare(a.writer, b.writer)
			}
			return cmp.Compare(a.key, b.key)
		})
		if !reflect.DeepEqual(par.versions(), want) || !reflect.DeepEqual(fresh.versions(), want) {
			t.Errorf("%s: the reads grouped by version in parallel differ from the serial ones", name)
		}
		for _, m := range []Model{Serializable, Snapshot} {
			res, err := Check(h, m)
			if err != nil || res.Valid != (name != "lost-update") {
				t.Errorf("%s %s: valid %v, err %v", name, m, res != nil && res.Valid, err)
			}
		}
	}
	clone := func(h *history.History) *history.History {
		c := &history.History{Txns: make([]history.Txn, len(h.Txns))}
		for i, tx := range h.Txns {
			tx.Ops = append([]history.Op(nil), tx.Ops...)
			c.Txns[i] = tx
		}
		return c
	}
	// Reads of values nobody wrote, spread over every chunk: the parallel
	// read checks report the serial ones' anomalies, in history order.
	thin := clone(valid)
	for i := 30_000; i < len(thin.Txns); i += 3_000 {
		thin.Txns[i].Ops[0].Value = -int64(i)
	}
	ix, err := index(compact(thin))
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{}
	ix.readChecks(res)
	if want := ix.readChecksIn(0, len(thin.Txns)); len(res.Anomalies) != maxAnomalies || !reflect.DeepEqual(res.Anomalies, want) {
		t.Errorf("parallel read checks: %d anomalies, differ from the serial %d", len(res.Anomalies), len(want))
	}
	last := len(valid.Txns) - 1
	dupValue := clone(valid)
	for j, o := range dupValue.Txns[last].Ops {
		if o.Kind == history.W {
			// The value an early transaction wrote to some key, written again.
			for _, e := range dupValue.Txns[10].Ops {
				if e.Kind == history.W {
					dupValue.Txns[last].Ops[j].Value = e.Value
					dupValue.Txns[last].Ops[j].Key = e.Key
					for k := range dupValue.Txns[last].Ops[:j] {
						dupValue.Txns[last].Ops[k].Key = e.Key
					}
				}
			}
			break
		}
	}
	// Keys and values whose offsets need exactly 64 bits together are
	// packed, and joined as the serial pass does; one bit more and the
	// parallel index gives up (the serial pass joins 16-byte pairs).
	// synth's keys are 0…999 (10 bits), its values 0…max.
	var vmax int64
	for _, tx := range valid.Txns {
		for _, o := range tx.Ops {
			vmax = max(vmax, o.Value)
		}
	}
	scaled := func(vbits int) *history.History {
		c := clone(valid)
		for i := range c.Txns {
			for j := range c.Txns[i].Ops {
				c.Txns[i].Ops[j].Value <<= vbits - bits.Len64(uint64(vmax))
			}
		}
		return c
	}
	edge, wide := scaled(54), scaled(55)
	par, ok := indexParallel(compact(edge))
	ser, err := indexSerial(compact(edge))
	if !ok || err != nil || !reflect.DeepEqual(par.readOf, ser.readOf) || !reflect.DeepEqual(par.wrefs, ser.wrefs) {
		t.Errorf("values of 54 bits: the parallel index gave up (%v) or differs from the serial one (%v)", !ok, err)
	}
	if _, ok := indexParallel(compact(wide)); ok {
		t.Errorf("values of 55 bits: the parallel index did not give up")
	}
	for _, m := range []Model{Serializable, Snapshot} {
		if res, err := Check(wide, m); err != nil || !res.Valid {
			t.Errorf("values of 55 bits, %s: valid %v, err %v", m, res != nil && res.Valid, err)
		}
	}
	badShape := clone(valid)
	badShape.Txns[last].Ops = nil
	badShape.Txns[last].Status = history.OK
	unknownKey := clone(valid)
	unknownKey.Txns[last].Ops[0].Key = 1 << 40
	for name, h := range map[string]*history.History{"value written twice": dupValue, "bad shape": badShape, "unknown key": unknownKey} {
		if _, ok := indexParallel(compact(h)); ok {
			t.Errorf("%s: the parallel index did not give up", name)
		}
		if _, err := Check(h, Serializable); err == nil {
			t.Errorf("%s: Check accepted it", name)
		}
	}
}

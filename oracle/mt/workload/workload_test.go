package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/oracle/mt"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// Servers are shared by the package's tests and started on first use, so
// that running one test starts only what it needs.
var (
	sharedMu sync.Mutex
	shared   = map[string]*localdbtest.Shared{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, sh := range shared {
		sh.Stop()
	}
	os.Exit(code)
}

// server returns a target on the package's shared server of kind with the
// given settings (one server per distinct kind+settings).
func server(t testing.TB, kind localdb.Kind, settings ...string) target.Target {
	t.Helper()
	key := string(kind) + " " + strings.Join(settings, " ")
	sharedMu.Lock()
	sh, ok := shared[key]
	if !ok {
		sh = localdbtest.StartShared(kind, settings...)
		shared[key] = sh
	}
	sharedMu.Unlock()
	srv := sh.Server(t)
	tg, err := connect.Open(t.Context(), srv.DSN(), connect.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", kind, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func TestValidate(t *testing.T) {
	b, err := os.ReadFile("testdata/validate.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string
		Config Config
		Err    string
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			err := c.Config.Validate()
			switch {
			case c.Err == "" && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case c.Err != "" && err == nil:
				t.Fatalf("Validate: nil, want an error containing %q", c.Err)
			case c.Err != "" && !strings.Contains(err.Error(), c.Err):
				t.Fatalf("Validate: %v, want an error containing %q", err, c.Err)
			}
		})
	}
}

func FuzzParseDistribution(f *testing.F) {
	for _, d := range Distributions {
		f.Add(string(d))
	}
	f.Add(" Zipfian ")
	f.Add("gauss")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDistribution(s)
		if err != nil {
			return
		}
		// An accepted name is canonical and parses back to itself.
		if d2, err := ParseDistribution(string(d)); err != nil || d2 != d {
			t.Fatalf("ParseDistribution(%q) = %q, which parses back to %q, %v", s, d, d2, err)
		}
	})
}

// TestPlan draws many MTs from every distribution and key count and checks
// Definition 8 on each plan, and that every key is in range.
func TestPlan(t *testing.T) {
	for _, d := range Distributions {
		for _, n := range []int{1, 2, 10, 1000} {
			r := rand.New(rand.NewPCG(1, 2))
			p := newKeyPicker(r, n, d)
			readOnly := 0
			var buf []step
			for range 5000 {
				buf = p.plan(0.3, buf)
				ops := make([]history.Op, len(buf))
				for i, s := range buf {
					if s.key < 1 || s.key > int64(n) {
						t.Fatalf("%s, %d keys: key %d out of range", d, n, s.key)
					}
					ops[i] = history.Op{Kind: history.R, Key: s.key}
					if s.write {
						ops[i].Kind = history.W
					}
				}
				if err := definition8(ops); err != nil {
					t.Fatalf("%s, %d keys: plan %v: %v", d, n, buf, err)
				}
				if !slices.ContainsFunc(ops, func(o history.Op) bool { return o.Kind == history.W }) {
					readOnly++
				}
			}
			// Read-only MTs are 30% of the plans: read-write plans write at least once.
			if readOnly < 1300 || readOnly > 1700 {
				t.Errorf("%s, %d keys: %d of 5000 plans read-only, want about 1500", d, n, readOnly)
			}
		}
	}
}

// definition8 checks one MT: one or two reads, at most two writes, each
// write preceded by a read of its key. An independent restatement, so the
// test does not trust the code it tests.
func definition8(ops []history.Op) error {
	reads, writes := 0, 0
	read := map[int64]bool{}
	for _, o := range ops {
		if o.Kind == history.R {
			reads++
			read[o.Key] = true
			continue
		}
		writes++
		if !read[o.Key] {
			return fmt.Errorf("write %v without a read of its key before it", o)
		}
	}
	if reads < 1 || reads > 2 || writes > 2 {
		return fmt.Errorf("%d reads, %d writes", reads, writes)
	}
	return nil
}

// run runs cfg on tg with the history streamed to a buffer, checks that
// the streamed history parses back to the returned one, that it is an MT
// (or LWT) history with unique written values, and returns it.
func run(t *testing.T, tg target.Target, cfg Config) (*history.History, *Stats) {
	t.Helper()
	var buf bytes.Buffer
	cfg.History = &buf
	progress := 0
	cfg.Progress = func(done int) {
		if done != progress+1 {
			t.Errorf("progress %d after %d", done, progress)
		}
		progress = done
	}
	start := time.Now()
	h, st, err := Run(t.Context(), tg, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("%s %s lwt=%v: %d MTs in %v (%.0f MTs/s): %d ok, %d fail, %d unknown, %v (total %v with setup)",
		tg.Info().DBMS, cfg.Level, cfg.LWT, st.Total(), st.Elapsed.Round(time.Millisecond), st.TxnsPerSec,
		st.Committed, st.Failed, st.Unknown, st.ByClass, time.Since(start).Round(time.Millisecond))
	if progress != st.Total() {
		t.Errorf("last progress %d, want %d", progress, st.Total())
	}
	back, err := history.Read(&buf)
	if err != nil {
		t.Fatalf("streamed history does not parse: %v", err)
	}
	if !reflect.DeepEqual(back.Txns, h.Txns) {
		t.Fatalf("streamed history differs from the returned one (%d vs %d transactions)", len(back.Txns), len(h.Txns))
	}
	if cfg.Txns > 0 && st.Total() != cfg.Txns {
		t.Errorf("recorded %d MTs, want %d", st.Total(), cfg.Txns)
	}
	if st.Committed == 0 {
		t.Errorf("no MT committed")
	}
	values := map[[2]int64]int64{}
	lastEnd := map[int]int64{}
	for _, tx := range h.Txns {
		if tx.Init {
			if cfg.LWT {
				t.Fatalf("an LWT history has an init transaction")
			}
			if len(tx.Ops) != cfg.Keys {
				t.Fatalf("init writes %d keys, want %d", len(tx.Ops), cfg.Keys)
			}
		} else if cfg.LWT {
			if n := len(tx.Ops); n > 2 || n == 0 && tx.Status == history.OK {
				t.Fatalf("T%d %v is not an LWT operation", tx.ID, tx.Ops)
			}
		} else if len(tx.Ops) > 0 || tx.Status == history.OK {
			if err := definition8(tx.Ops); err != nil {
				t.Fatalf("T%d %v: %v", tx.ID, tx.Ops, err)
			}
		}
		if !tx.Init {
			if tx.Start < lastEnd[tx.Session] {
				t.Fatalf("T%d starts at %d before its session's previous MT ended at %d", tx.ID, tx.Start, lastEnd[tx.Session])
			}
			lastEnd[tx.Session] = tx.End
		}
		for _, o := range tx.Ops {
			if o.Kind != history.W {
				continue
			}
			k := [2]int64{o.Key, o.Value}
			if prev, dup := values[k]; dup {
				t.Fatalf("value %d written to key %d by T%d and T%d", o.Value, o.Key, prev, tx.ID)
			}
			values[k] = tx.ID
		}
	}
	return h, st
}

func check(t *testing.T, h *history.History, model mt.Model) *mt.Result {
	t.Helper()
	start := time.Now()
	res, err := mt.Check(h, model)
	if err != nil {
		t.Fatalf("mt.Check %s: %v", model, err)
	}
	t.Logf("mt.Check %s: valid=%v in %v", model, res.Valid, time.Since(start).Round(time.Microsecond))
	return res
}

func wantValid(t *testing.T, h *history.History, model mt.Model) {
	t.Helper()
	if res := check(t, h, model); !res.Valid {
		b, _ := json.MarshalIndent(res.Anomalies[0], "", "  ")
		t.Fatalf("%s violated:\n%s", model, b)
	}
}

// wantAnomaly checks h against model and wants a violation named one of names.
func wantAnomaly(t *testing.T, h *history.History, model mt.Model, names ...string) {
	t.Helper()
	res := check(t, h, model)
	if res.Valid {
		t.Fatalf("%s: valid, want one of %v", model, names)
	}
	for _, a := range res.Anomalies {
		for _, n := range names {
			if string(a.Name) == n {
				t.Logf("found %s: %s", a.Name, a.Explanation)
				return
			}
		}
	}
	got := make([]string, len(res.Anomalies))
	for i, a := range res.Anomalies {
		got[i] = string(a.Name)
	}
	t.Fatalf("%s: anomalies %v, want one of %v", model, got, names)
}

func TestSQLite(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	t.Run("serializable", func(t *testing.T) {
		h, _ := run(t, tg, Config{Sessions: 4, Txns: 2000, Keys: 10, ReadOnlyRatio: 0.2, Seed: 1})
		wantValid(t, h, mt.Serializable)
		wantValid(t, h, mt.StrictSerializable)
	})
	t.Run("lwt", func(t *testing.T) {
		h, _ := run(t, tg, Config{Sessions: 4, Txns: 2000, Keys: 10, LWT: true, Seed: 2})
		wantValid(t, h, mt.Linearizable)
	})
	t.Run("duration", func(t *testing.T) {
		_, st := run(t, tg, Config{Sessions: 2, Duration: 200 * time.Millisecond, Keys: 5, Distribution: Hotspot})
		if st.Elapsed > 2*time.Second {
			t.Errorf("a 200ms run took %v", st.Elapsed)
		}
	})
}

func TestPostgres(t *testing.T) {
	tg := server(t, localdb.Postgres)
	t.Run("serializable", func(t *testing.T) {
		h, _ := run(t, tg, Config{Sessions: 8, Txns: 3000, Keys: 10, ReadOnlyRatio: 0.2, Level: target.Serializable, Seed: 3})
		wantValid(t, h, mt.Serializable)
	})
	t.Run("read-committed", func(t *testing.T) {
		h, _ := run(t, tg, Config{Sessions: 8, Txns: 1000, Keys: 10, Level: target.ReadCommitted, Seed: 4})
		// Read committed lets an UPDATE overwrite a version the MT did not
		// read: lost update first of all, but any named cycle will do.
		res := check(t, h, mt.Serializable)
		if res.Valid || res.Anomalies[0].Name == "" {
			t.Fatalf("read committed checked as serializable: valid=%v, want a named anomaly", res.Valid)
		}
		t.Logf("first anomaly: %s (%s)", res.Anomalies[0].Name, res.Anomalies[0].Explanation)
	})
	t.Run("repeatable-read", func(t *testing.T) {
		// PostgreSQL's repeatable read is snapshot isolation.
		h, _ := run(t, tg, Config{Sessions: 8, Txns: 2000, Keys: 10, Level: target.RepeatableRead, Seed: 5})
		wantValid(t, h, mt.Snapshot)
	})
	t.Run("lwt", func(t *testing.T) {
		h, _ := run(t, tg, Config{Sessions: 8, Txns: 3000, Keys: 10, LWT: true, Level: target.ReadCommitted, Seed: 6})
		wantValid(t, h, mt.Linearizable)
	})
}

func TestMariaDB(t *testing.T) {
	tg := server(t, localdb.MariaDB)
	t.Run("repeatable-read", func(t *testing.T) {
		// InnoDB's UPDATE reads the latest committed version, not the
		// snapshot: lost update is documented behaviour at its RR.
		h, _ := run(t, tg, Config{Sessions: 8, Txns: 1000, Keys: 10, Level: target.RepeatableRead, Seed: 7})
		wantAnomaly(t, h, mt.Snapshot, "lost-update")
	})
	t.Run("lwt", func(t *testing.T) {
		h, _ := run(t, tg, Config{Sessions: 8, Txns: 3000, Keys: 10, LWT: true, Level: target.RepeatableRead, Seed: 8})
		wantValid(t, h, mt.Linearizable)
	})
}

func TestMariaDBSnapshotIsolation(t *testing.T) {
	tg := server(t, localdb.MariaDB, "innodb_snapshot_isolation=ON")
	h, _ := run(t, tg, Config{Sessions: 8, Txns: 2000, Keys: 10, Level: target.RepeatableRead, Seed: 9})
	// MDEV-39263 (a real bug, its fix merged upstream in April 2026 as
	// MariaDB/server#4936; Debian's 10.11.14 has it): an UPDATE misses
	// ER_CHECKREAD when the row's last writer commits while the UPDATE
	// acquires its lock, and both updates commit. Under load about one run in thirty here has one
	// such lost update; it is logged, and any other anomaly fails.
	for _, a := range check(t, h, mt.Snapshot).Anomalies {
		b, _ := json.MarshalIndent(a, "", "  ")
		if a.Name != "lost-update" {
			t.Fatalf("snapshot violated:\n%s", b)
		}
		t.Logf("a lost update, MDEV-39263 (known): %s", a.Explanation)
	}
	// Snapshot isolation still allows write skew, so serializable is not
	// promised; logged, not asserted, since a run need not hit one.
	if res := check(t, h, mt.Serializable); !res.Valid {
		b, _ := json.MarshalIndent(res.Anomalies[0], "", " ")
		t.Logf("as serializable: %s", b)
	}
}

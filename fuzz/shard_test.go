package fuzz_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// seenOracle records the seeds of the cases it is shown and groups cases
// as WSS does (several per round, a number that varies by round), so that
// a case budget ends inside a group.
type seenOracle struct {
	mu    sync.Mutex
	seeds []string
}

func (o *seenOracle) Name() string      { return "seen" }
func (o *seenOracle) JudgesPlain() bool { return false }
func (o *seenOracle) Check(_ context.Context, _ target.Target, c *testcase.Case, _ *executor.Result, _ executor.Options) (*oracle.Judgement, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seeds = append(o.seeds, c.Seed)
	return &oracle.Judgement{}, nil
}
func (o *seenOracle) Group(seed uint64, cfg gen.Config) []*testcase.Case {
	var out []*testcase.Case
	for k := range 1 + int(seed%3) {
		c := gen.Case(seed+uint64(k), cfg)
		out = append(out, c)
	}
	return out
}

// TestShards: for a fixed seed and case limit, the shards' cases are
// disjoint and together exactly the unsharded campaign's.
func TestShards(t *testing.T) {
	run := func(sh fuzz.Shard) []string {
		t.Helper()
		o := &seenOracle{}
		s, err := fuzz.Run(context.Background(), []target.Target{connecttest.Target(t, "sqlite")},
			fuzz.Options{Seed: 17, Cases: 23, Oracles: [][]oracle.CaseOracle{{o}}, Shard: sh})
		if err != nil {
			t.Fatal(err)
		}
		if s.Cases != len(o.seeds) || s.Shard != sh.String() {
			t.Fatalf("shard %v: summary says %d cases, shard %q; the oracle saw %d", sh, s.Cases, s.Shard, len(o.seeds))
		}
		return o.seeds
	}
	whole := run(fuzz.Shard{})
	if len(whole) != 23 {
		t.Fatalf("the whole campaign ran %d cases, want 23", len(whole))
	}
	var union []string
	for i := range 3 {
		part := run(fuzz.Shard{Index: i, Of: 3})
		if len(part) == 0 {
			t.Errorf("shard %d/3 ran nothing", i+1)
		}
		union = append(union, part...)
	}
	slices.Sort(whole)
	slices.Sort(union)
	if !slices.Equal(whole, union) {
		t.Errorf("the shards ran %d cases %v,\nthe whole campaign %d %v", len(union), union, len(whole), whole)
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]fuzz.Shard{"1/1": {0, 1}, "2/8": {1, 8}, "8/8": {7, 8}} {
		if got, err := fuzz.ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0/8", "9/8", "2", "2/0", "a/b", "1/2/3", " 1/2x"} {
		if _, err := fuzz.ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}

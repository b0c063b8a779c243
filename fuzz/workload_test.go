package fuzz_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/verdict"
)

// counter is a tiny free-running workload on a real SQLite database: each
// round inserts rows until its deadline or its row budget and reports one
// finding per round whose seed is odd, so the test can see that rounds,
// levels, seeds and findings flow through the loop.
type counter struct {
	rows   int
	mu     sync.Mutex
	levels []target.Level
	seeds  []uint64
}

func (c *counter) Name() string { return "counter" }

func (c *counter) Round(ctx context.Context, t target.Target, spec oracle.RoundSpec) (*oracle.RoundResult, error) {
	c.mu.Lock()
	c.levels = append(c.levels, spec.Level)
	c.seeds = append(c.seeds, spec.Seed)
	c.mu.Unlock()
	if err := t.Reset(ctx); err != nil {
		return nil, err
	}
	s, err := t.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, err := s.Exec(ctx, "CREATE TABLE w (i INT)"); err != nil {
		return nil, err
	}
	if err := t.Adopt(ctx, []string{"w"}); err != nil {
		return nil, err
	}
	res := &oracle.RoundResult{ErrorsByClass: map[string]int{}}
	for i := 0; i < c.rows && (spec.Until.IsZero() || time.Now().Before(spec.Until)); i++ {
		if _, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO w VALUES (%d)", i)); err != nil {
			return nil, err
		}
		res.Transactions++
		res.Committed++
		spec.Progress(res.Transactions)
	}
	if spec.Seed%2 == 1 {
		res.Findings = append(res.Findings, verdict.Finding{Oracle: "test", Kind: "odd-seed", Verdict: verdict.Allowed})
	}
	return res, nil
}

func TestRunWorkloadRounds(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	w := &counter{rows: 20}
	levels := []target.Level{target.Serializable, ""}
	s, err := fuzz.Run(context.Background(), []target.Target{tg}, fuzz.Options{Seed: 9, Cases: 5, Levels: levels, Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	if s.Cases != 5 || s.Transactions != 100 || s.Committed != 100 || !s.Free {
		t.Fatalf("summary %+v, want 5 rounds of 20", s)
	}
	want := []target.Level{target.Serializable, "", target.Serializable, "", target.Serializable}
	if !slices.Equal(w.levels, want) {
		t.Errorf("levels %v, want %v", w.levels, want)
	}
	odd := 0
	for i, sd := range w.seeds {
		if slices.Contains(w.seeds[:i], sd) {
			t.Errorf("seed %d repeated", sd)
		}
		odd += int(sd % 2)
	}
	if len(s.Findings) != odd {
		t.Errorf("%d findings, want %d (one per odd seed)", len(s.Findings), odd)
	}
}

func TestRunWorkloadDeadline(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	w := &counter{rows: 1 << 30}
	start := time.Now()
	s, err := fuzz.Run(context.Background(), []target.Target{tg}, fuzz.Options{Seed: 1, Duration: 300 * time.Millisecond, Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("ran %v past a 300ms duration", el)
	}
	if s.Cases != 1 || s.Transactions == 0 || s.Interrupted {
		t.Errorf("summary %+v: want one round cut at the deadline, not interrupted", s)
	}
}

func TestRoundSpecLimit(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		until  time.Time
		d      time.Duration
		atMost time.Duration
		ok     bool
	}{
		{time.Time{}, 0, 0, true},
		{time.Time{}, time.Second, time.Second, true},
		{now.Add(-time.Second), time.Second, 0, false},
		{now.Add(time.Hour), 0, time.Hour, true},
		{now.Add(time.Hour), time.Second, time.Second, true},
		{now.Add(time.Minute), time.Hour, time.Minute, true},
	} {
		got, ok := oracle.RoundSpec{Until: tc.until}.Limit(tc.d)
		if ok != tc.ok || got > tc.atMost || (tc.ok && tc.atMost > 0 && got < tc.atMost-time.Second) {
			t.Errorf("Limit(%v) until %v = %v, %v; want about %v, %v", tc.d, tc.until.Sub(now), got, ok, tc.atMost, tc.ok)
		}
	}
}

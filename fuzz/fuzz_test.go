package fuzz_test

import (
	"context"
	"testing"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// TestInvalidRatio runs a short campaign at every isolation level of each
// DBMS and checks that fewer than 1% of the generated statements are
// rejected as invalid, and that the campaign really ran statements.
func TestInvalidRatio(t *testing.T) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			tg := connecttest.Target(t, dbms)
			s, err := fuzz.Run(context.Background(), []target.Target{tg}, fuzz.Options{Seed: 3, Cases: 60, Levels: tg.Levels()})
			if err != nil {
				t.Fatal(err)
			}
			if s.Cases != 60 || s.Statements < 60*5 {
				t.Fatalf("campaign too small: %+v", s)
			}
			if s.InvalidRatio >= 0.01 {
				t.Errorf("invalid ratio %.4f (%d of %d): %v", s.InvalidRatio, s.InvalidCount, s.Statements, s.InvalidExamples)
			}
			if s.Hangs > 0 {
				t.Errorf("%d hangs", s.Hangs)
			}
			t.Logf("%s: %d statements, errors %v, blocked %d", dbms, s.Statements, s.ErrorsByClass, s.Blocked)
		})
	}
}

// TestInterrupt cancels a campaign without limits and expects a summary.
func TestInterrupt(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	s, err := fuzz.Run(ctx, []target.Target{tg}, fuzz.Options{Seed: 1})
	if err != nil {
		t.Fatalf("interrupted run returned %v", err)
	}
	if !s.Interrupted || s.Cases == 0 || s.ElapsedSeconds <= 0 {
		t.Errorf("summary %+v", s)
	}
}

// TestDuration stops on its own after --duration and is not "interrupted".
func TestDuration(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	s, err := fuzz.Run(context.Background(), []target.Target{tg}, fuzz.Options{Seed: 1, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Interrupted || s.Cases == 0 || s.ElapsedSeconds < 0.3 || s.ElapsedSeconds > 5 {
		t.Errorf("summary %+v", s)
	}
}

// TestWorkers runs the same groups on two workers, each with its own
// database, and gets the same generated work as one worker does.
func TestWorkers(t *testing.T) {
	one, err := fuzz.Run(context.Background(), []target.Target{connecttest.Target(t, "sqlite")}, fuzz.Options{Seed: 5, Cases: 30})
	if err != nil {
		t.Fatal(err)
	}
	two, err := fuzz.Run(context.Background(), []target.Target{connecttest.Target(t, "sqlite"), connecttest.Target(t, "sqlite")}, fuzz.Options{Seed: 5, Cases: 30})
	if err != nil {
		t.Fatal(err)
	}
	if two.Workers != 2 || two.Cases != 30 || two.Transactions != one.Transactions {
		t.Errorf("two workers: %+v; one worker: %+v", two, one)
	}
}

// TestWorkersGroups: with an oracle that generates groups of cases (WSS's
// submitted orders) and a case budget that ends inside a group, one worker
// and two run the same cases — the rounds take their share of the budget in
// order — however the two workers' speeds interleave (three tries).
func TestWorkersGroups(t *testing.T) {
	ctx := context.Background()
	run := func(workers int) *fuzz.Summary {
		t.Helper()
		var tgs []target.Target
		for range workers {
			tgs = append(tgs, connecttest.Target(t, "sqlite"))
		}
		var sets [][]oracle.CaseOracle
		for range tgs {
			sets = append(sets, build("wss"))
		}
		s, err := fuzz.Run(ctx, tgs, fuzz.Options{Seed: 9, Cases: 31, Oracles: sets, Writer: &report.Writer{Dir: t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	one := run(1)
	if one.Cases != 31 || one.Rounds < 2 {
		t.Fatalf("one worker: %+v", one)
	}
	for range 3 {
		if two := run(2); two.Cases != 31 || two.Rounds != one.Rounds || two.Statements != one.Statements || two.Transactions != one.Transactions {
			t.Fatalf("two workers ran other cases: %d rounds, %d statements, %d transactions; one worker: %d, %d, %d",
				two.Rounds, two.Statements, two.Transactions, one.Rounds, one.Statements, one.Transactions)
		}
	}
}

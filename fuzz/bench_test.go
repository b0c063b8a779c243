package fuzz_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/internal/cputime"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/isorel"
	"github.com/txlab/txlab/oracle/troc"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// BenchmarkOracles measures the campaign loop on embedded SQLite with each
// oracle selection, built as `txlab fuzz --oracle` builds them (build): the same seeded cases each time, so ns/case compares the
// selections directly. wss,isorel shares one plain execution per case, so it
// should cost less than wss and isorel run apart (minus the "none" baseline
// that both would pay twice). troc minus none is the model's cost over the
// plain execution.
//
//	go test -run '^$' -bench BenchmarkOracles -benchtime 3x ./fuzz/
func BenchmarkOracles(b *testing.B) {
	const cases = 40
	for _, list := range []string{"none", "wss", "isorel", "troc", "wss,isorel", "wss,isorel,troc"} {
		b.Run(list, func(b *testing.B) {
			benchCampaign(b, list, []target.Target{connecttest.Target(b, "sqlite")}, cases)
		})
	}
}

// BenchmarkWorkers measures campaign throughput on embedded SQLite with one
// and with two workers (a fresh database file each), plain runs and the
// default oracles: ns/case of workers=2 over workers=1 is the scaling.
//
//	go test -run '^$' -bench BenchmarkWorkers -benchtime 3x ./fuzz/
func BenchmarkWorkers(b *testing.B) {
	const cases = 200
	for _, list := range []string{"none", "wss,isorel,troc"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", list, workers), func(b *testing.B) {
				var tgs []target.Target
				for range workers {
					tgs = append(tgs, connecttest.Target(b, "sqlite"))
				}
				benchCampaign(b, list, tgs, cases)
			})
		}
	}
}

// benchCampaign runs campaigns of seed 7 on targets (one worker each) with
// the oracles of list, built fresh for each iteration outside the timer,
// and reports ns/case and the process's CPU time per case (cpu-ns/case:
// what a case costs whatever else the machine runs; more of it with more
// workers is the cost of their contention).
func benchCampaign(b *testing.B, list string, targets []target.Target, cases int) {
	ctx := context.Background()
	total := 0
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		var sets [][]oracle.CaseOracle
		for range targets {
			sets = append(sets, build(list))
		}
		b.StartTimer()
		start := cputime.Process()
		s, err := fuzz.Run(ctx, targets, fuzz.Options{Seed: 7, Cases: cases, Oracles: sets, Writer: &report.Writer{Dir: b.TempDir()}})
		cpu += cputime.Process() - start
		if err != nil {
			b.Fatal(err)
		}
		total += s.Cases
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/case")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(total), "cpu-ns/case")
	}
}

// build makes one worker's oracles of list (in the order they run) as
// `txlab fuzz --oracle list` builds them with its default flags: one model
// checker serves them all.
func build(list string) []oracle.CaseOracle {
	checker := &conform.Checker{}
	var out []oracle.CaseOracle
	for _, name := range strings.Split(list, ",") {
		switch name {
		case wss.Name:
			out = append(out, &wss.Oracle{Options: wss.Options{Model: checker, Memo: &wss.RunMemo{}}, Groups: wssGroups})
		case isorel.Name:
			out = append(out, &isorel.Oracle{Options: isorel.Options{Checker: checker}})
		case troc.Name:
			out = append(out, &troc.Oracle{Model: checker})
		}
	}
	return out
}

// WSS generates the campaign's groups.
var _ fuzz.Grouper = (*wss.Oracle)(nil)

// wssGroups are the groups of `txlab fuzz`'s default --orders, --max-txns
// and --max-stmts.
var wssGroups = wss.GroupConfig{Orders: 3, MaxTxns: 5, MaxStmts: 5}

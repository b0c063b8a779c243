package isorel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/internal/expectfile"
	"github.com/txlab/txlab/oracle/isorel"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// fidelity is the comparison of a plain and an instrumented run of one case.
type fidelity struct {
	name string
	// diff is instrument.Unfaithful's answer ("" = they agree); flaky says
	// two plain runs already differ (a deadlock victim, timing), so the
	// case says nothing about the instrumentation.
	diff  string
	flaky bool
	// otherPlain: the instrumented run differed from the first plain run
	// but equals a later one: the instrumentation led to an outcome the
	// case as written has too (which of two waiters InnoDB grants a
	// released lock first, which deadlocks), so IsoRel judges an
	// execution that really happens.
	otherPlain bool
	// notes are the statements that ran without (full) instrumentation.
	notes []string
}

// compare runs c plainly and instrumented on tg at level and compares them
// statement by statement.
func compare(ctx context.Context, tg target.Target, name string, c *testcase.Case, level target.Level) (fidelity, error) {
	f := fidelity{name: name}
	opt := executor.Options{Isolation: level}
	plain, err := executor.Run(ctx, tg, c, opt)
	if err != nil {
		return f, err
	}
	p, err := instrument.Instrument(c, tg.Info())
	if err != nil {
		return f, err
	}
	instrumented := func() (*executor.Result, error) {
		inst, err := executor.Run(ctx, tg, p.Case, opt)
		if err != nil {
			return nil, err
		}
		if h, err := instrument.Record(p, inst); err == nil {
			f.notes = isorel.Uninstrumented(h)
		}
		p.Strip(inst)
		return inst, nil
	}
	inst, err := instrumented()
	if err != nil {
		// The case runs plainly: that it does not instrumented is a
		// difference, not a case to leave out.
		f.diff = "the instrumented run failed: " + err.Error()
		return f, nil
	}
	if f.diff = instrument.Unfaithful(p, inst, plain); f.diff == "" {
		return f, nil
	}
	// A difference counts when it shows again. The instrumented run
	// agrees when a later plain run has its outcome; two plain runs that
	// differ, or a second instrumented run that agrees, make the case one
	// whose outcome depends on timing (PostgreSQL's deadlock victim is the
	// session whose deadlock_timeout expires first).
	varies := false
	for range plainRetries {
		again, err := executor.Run(ctx, tg, c, opt)
		if err != nil {
			return f, err
		}
		if instrument.Unfaithful(p, inst, again) == "" {
			f.diff, f.otherPlain = "", true
			return f, nil
		}
		varies = varies || !sameRun(c, plain, again)
	}
	inst2, err := instrumented()
	if err != nil {
		return f, err
	}
	f.flaky = varies || instrument.Unfaithful(p, inst2, plain) == ""
	return f, nil
}

// plainRetries is how many more plain runs compare makes of a case whose
// instrumented run differs from its first, looking for that outcome.
const plainRetries = 4

// sameRun says whether two plain runs of c agree, by the measure
// Unfaithful applies to instrumented runs.
func sameRun(c *testcase.Case, a, b *executor.Result) bool {
	return instrument.Unfaithful(&instrument.Plan{Original: c}, b, a) == ""
}

// dump writes a generated case that differs into $TXLAB_FIDELITY_DUMP,
// when set, for a closer look with txlab run.
func dump(t *testing.T, name string, c *testcase.Case) {
	dir := os.Getenv("TXLAB_FIDELITY_DUMP")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(c.String()), 0o644); err != nil {
		t.Error(err)
	}
}

// fixedCases are the hand-written and published cases for dbms: the
// corpus's, the examples and the oracles' testdata whose dbms header names
// dbms (or none).
func fixedCases(t *testing.T, dbms string) map[string]*testcase.Case {
	t.Helper()
	out := map[string]*testcase.Case{}
	entries, err := bugs.ForTarget(dbms)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		out[e.File] = e.Case
	}
	for _, glob := range []string{"../../examples/*.txn", "testdata/*.txn", "../troc/testdata/*.txn", "../wss/testdata/*.txn"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			c, err := testcase.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			db, _, _ := strings.Cut(c.DBMS, " ")
			if db != "" && !strings.EqualFold(db, dbms) {
				continue
			}
			out[strings.TrimPrefix(filepath.Clean(file), "../")] = c
		}
	}
	return out
}

// TestFidelity runs cases plainly and instrumented and compares them
// statement by statement (results, blocking, errors, rows changed) and by
// final state (issue 13): the instrumentation must not change the execution
// IsoRel judges. Generated cases must agree at least minAgree of the time;
// every hand-written and published case must agree, except those listed
// in testdata/fidelity-exceptions.txt with the reason. TXLAB_FIDELITY_CASES
// sets how many generated cases per level (default 40; BENCHMARKS.md has
// the figures of 200). A difference counts only when it shows again (see
// compare).
func TestFidelity(t *testing.T) {
	// ≥ 98 % is the target over 200 cases a level. 40 cases in CI allow
	// two misses: MariaDB agrees 98–99.5 % over 200 (BENCHMARKS.md), and a
	// case whose lock grant order or deadlock comes out differently in
	// every run of compare counts as a miss now and then. A regression
	// (the 37 % of before issue 13, the 93 % before padded wLists) still
	// fails it.
	minAgree := 0.95
	generated := 40
	if s := os.Getenv("TXLAB_FIDELITY_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		generated = n
		if n >= 200 {
			minAgree = 0.98
		}
	}
	excepted := map[string]string{}
	for _, fs := range expectfile.Read(t, "testdata/fidelity-exceptions.txt", 3, 0) {
		excepted[fs[0]+" "+fs[1]] = strings.Join(fs[2:], " ")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		dbms   string
		levels []target.Level
	}{
		{"sqlite", []target.Level{""}},
		{"mariadb", []target.Level{target.ReadCommitted, target.RepeatableRead}},
		{"postgres", []target.Level{target.ReadCommitted, target.RepeatableRead}},
	} {
		t.Run(tc.dbms, func(t *testing.T) {
			// On a bench, as a campaign's worker runs: a setup like the
			// last one empties its tables instead of creating them again.
			tg := executor.NewBench(connecttest.Target(t, tc.dbms))
			fixed := fixedCases(t, tc.dbms)
			names := make([]string, 0, len(fixed))
			for n := range fixed {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, level := range tc.levels {
				lname := string(level)
				if lname == "" {
					lname = "default"
				}
				t.Run(lname, func(t *testing.T) {
					var agree, otherPlain, total, flaky, noted int
					for i := range generated {
						seed := uint64(1000 + i)
						c := gen.Case(seed, gen.Config{Dialect: tg.Info().Dialect})
						f, err := compare(ctx, tg, fmt.Sprintf("seed %d", seed), c, level)
						if err != nil {
							t.Fatalf("seed %d: %v", seed, err)
						}
						switch {
						case f.flaky:
							flaky++
							continue
						case f.diff == "":
							agree++
							if f.otherPlain {
								otherPlain++
							}
						default:
							t.Logf("generated %s differs: %s", f.name, f.diff)
							dump(t, fmt.Sprintf("%s-%s-%d.txn", tc.dbms, lname, seed), c)
						}
						total++
						if len(f.notes) > 0 {
							noted++
						}
					}
					if total > 0 {
						rate := float64(agree) / float64(total)
						t.Logf("generated: %d of %d agree (%.1f%%; %d with a later plain run), %d nondeterministic left out, %d with an uninstrumented statement", agree, total, 100*rate, otherPlain, flaky, noted)
						if rate < minAgree {
							t.Errorf("generated cases agree %.1f%% of the time, want ≥ %.0f%%", 100*rate, 100*minAgree)
						}
					}
					var fixedAgree, fixedTotal int
					for _, n := range names {
						f, err := compare(ctx, tg, n, fixed[n], level)
						if err != nil {
							t.Logf("%s: not run: %v", n, err)
							continue
						}
						if f.flaky {
							t.Logf("%s: nondeterministic plainly, left out", n)
							continue
						}
						fixedTotal++
						switch why, ok := excepted[n+" "+tc.dbms]; {
						case f.diff == "":
							fixedAgree++
						case ok:
							t.Logf("%s differs: %s (excepted: %s)", n, f.diff, why)
						default:
							t.Errorf("%s differs: %s", n, f.diff)
						}
						for _, note := range f.notes {
							t.Logf("%s: %s", n, note)
						}
					}
					t.Logf("hand-written and published: %d of %d agree", fixedAgree, fixedTotal)
				})
			}
		})
	}
}

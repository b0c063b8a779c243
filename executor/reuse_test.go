package executor_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestReusedSetup runs each case twice on MariaDB, PostgreSQL and SQLite: once on freshly created
// tables and once on the same tables emptied in place. The two runs must
// agree statement by statement and in the final state, AUTO_INCREMENT
// included; a schema statement among the steps must turn reuse off.
func TestReusedSetup(t *testing.T) {
	for _, dbms := range []string{"mariadb", "postgres", "sqlite"} {
		t.Run(dbms, func(t *testing.T) { testReusedSetup(t, dbms) })
	}
}

func testReusedSetup(t *testing.T, dbms string) {
	tg := executor.NewBench(connecttest.Target(t, dbms))
	ctx := context.Background()
	opt := executor.Options{HangTimeout: 5 * time.Second}
	var cases []*testcase.Case
	if dbms == "mariadb" {
		cases = append(cases, loadCase(t, "auto-increment-reuse"))
	}
	for seed := uint64(1); seed <= 40; seed++ {
		cases = append(cases, gen.Case(seed, gen.Config{Dialect: tg.Info().Dialect}))
	}
	// Two runs of one case can differ without any reuse (the server picks
	// a deadlock victim, statements released together race), so the
	// reused runs are held to the rate at which two fresh runs differ.
	reused, differ, baseline := 0, 0, 0
	var diffs []string
	run := func(c *testcase.Case, fresh bool) (*executor.Result, bool) {
		if fresh {
			executor.ForgetSetup(tg)
		}
		res, err := executor.Run(ctx, tg, c, opt)
		var setupErr *executor.SetupError
		if errors.As(err, &setupErr) {
			return nil, false
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if res.Reused == fresh {
			t.Errorf("%s: reused = %v on a run that should %s", c.Name, res.Reused, map[bool]string{true: "create its tables", false: "reuse them"}[fresh])
		}
		return res, true
	}
	for _, c := range cases {
		first, ok := run(c, true)
		if !ok {
			continue
		}
		second, _ := run(c, true)
		third, _ := run(c, false)
		reused++
		if second != nil && differsBeyondRace(first, second) {
			baseline++
		}
		if third != nil && differsBeyondRace(first, third) {
			differ++
			diffs = append(diffs, fmt.Sprintf("%s: the runs differ:\nfresh:\n%s\nreused:\n%s", c.Name, compact(first), compact(third)))
		}
	}
	t.Logf("%d cases: %d fresh runs differ from a fresh run, %d reused ones", reused, baseline, differ)
	if reused < len(cases)/2 {
		t.Errorf("only %d of %d cases ran", reused, len(cases))
	}
	if differ > baseline+max(2, baseline/2) {
		t.Errorf("%d of %d cases ran differently on reused tables, %d on new ones:\n%s", differ, reused, baseline, strings.Join(diffs, "\n"))
	}

	// Steps that alter a table, and a setup that creates a sequence (which
	// emptying the tables would not rewind), turn reuse off; each run
	// starts without the sequence the last one created (PostgreSQL: Reset
	// sweeps what the case role owns).
	srcs := []string{"CREATE TABLE t (k INT PRIMARY KEY);\n1> ALTER TABLE t ADD COLUMN v INT;\n"}
	if dbms == "mariadb" || dbms == "postgres" {
		srcs = append(srcs, "CREATE SEQUENCE s;\nCREATE TABLE t (k INT PRIMARY KEY);\n1> SELECT * FROM t;\n")
	}
	for _, src := range srcs {
		c, err := testcase.ParseString("no-reuse", src)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			res, err := executor.Run(ctx, tg, c, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reused {
				t.Errorf("run %d of %q reused its tables", i+1, src)
			}
		}
	}
}

// differsBeyondRace reports whether two runs of one case part before
// either has waited for a lock. From the first wait on, two runs can go
// different ways on fresh tables as on reused ones (which waiter a release
// wakes first, the deadlock victim: a CI run counted 3 such partings
// between fresh runs and 6 with reuse); before it, the runs see only what
// the setup left, which is what reuse must not change.
func differsBeyondRace(a, b *executor.Result) bool {
	if compact(a) == compact(b) {
		return false
	}
	line := func(ev executor.Event) string {
		return compact(&executor.Result{Events: []executor.Event{ev}, Hang: true})
	}
	for i := 0; i < len(a.Events) && i < len(b.Events); i++ {
		if a.Events[i].Status == executor.StatusBlocked || b.Events[i].Status == executor.StatusBlocked {
			return false
		}
		if line(a.Events[i]) != line(b.Events[i]) {
			return true
		}
	}
	return len(a.Events) != len(b.Events) || !a.Hang && !b.Hang
}

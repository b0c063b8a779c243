package wss

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Validate checks the group flags of `txlab fuzz` (--orders, --max-txns,
// --max-stmts); the zero config is `txlab run`'s, which generates no
// groups.
func (g GroupConfig) Validate() error {
	switch {
	case reflect.DeepEqual(g, GroupConfig{}):
		return nil // txlab run: no groups are generated
	case g.Orders < 1 || g.Orders > 20:
		return fmt.Errorf("--orders %d: want 1 to 20", g.Orders)
	case g.MaxTxns < 2 || g.MaxTxns > 5:
		return fmt.Errorf("--max-txns %d: want 2 to 5", g.MaxTxns)
	case g.MaxStmts < 1 || g.MaxStmts > 10:
		return fmt.Errorf("--max-stmts %d: want 1 to 10", g.MaxStmts)
	}
	return nil
}

// Oracle plugs WSS into `txlab fuzz` and `txlab run`: it generates groups and
// judges cases, returning each finding with its bundle.
type Oracle struct {
	Options Options
	Groups  GroupConfig
}

// Name implements oracle.CaseOracle.
func (o *Oracle) Name() string { return Name }

// JudgesPlain implements oracle.CaseOracle: WSS compares the plain
// concurrent run with its serial re-runs.
func (o *Oracle) JudgesPlain() bool { return true }

// Group implements fuzz.Grouper: one group's submitted orders.
func (o *Oracle) Group(seed uint64, cfg gen.Config) []*testcase.Case {
	gc := o.Groups
	gc.Dialect = cfg.Dialect
	gc.NoSharedLocks = cfg.NoSharedLocks
	gc.NoLockingReads = cfg.NoLockingReads
	gc.Features = cfg.Features
	return Group(seed, gc)
}

// Check implements oracle.CaseOracle: it judges the plain run of c and
// returns the findings, each with its bundle.
func (o *Oracle) Check(ctx context.Context, t target.Target, c *testcase.Case, plain *executor.Result, opt executor.Options) (*oracle.Judgement, error) {
	wo := o.Options
	wo.Exec = opt
	out, err := CheckExecution(ctx, t, c, plain, wo)
	if err != nil {
		return nil, err
	}
	var notes []string
	switch {
	case strings.HasPrefix(out.Skipped, SkippedTruncated):
		notes = append(notes, "wss: not judged: "+out.Skipped)
	case out.Skipped != "":
		// Said, not silent: the case waited out the hang bound and WSS
		// could not compare it.
		notes = append(notes, fmt.Sprintf("wss: not judged: %s within the hang bound (--hang-timeout %v)", out.Skipped, opt.Hang()))
	}
	return &oracle.Judgement{Findings: out.Findings, Evidence: out.Bundles(), Notes: notes, Undecided: undecided(out)}, nil
}

// undecided is why WSS did not judge a case to its end: the runs it
// compares did not finish, or a difference it found is left suspect (the
// model of documented semantics could not settle it, the serial orders
// were too many to search, the case is outside its transaction model).
func undecided(out *Outcome) string {
	if out.Skipped != "" {
		why, _, _ := strings.Cut(out.Skipped, " (")
		return why
	}
	for _, v := range out.Violations {
		if v.Finding.Verdict != verdict.Suspect {
			continue
		}
		switch m := out.Model; {
		case v.Finding.Rule == semantics.RuleOutsideModel.Name:
			return "outside WSS's transaction model"
		case v.Finding.Rule == semantics.RuleOrdersNotSearched.Name:
			return "serial orders not searched"
		case m != nil && m.Deviation == nil && m.Halted != "":
			return "the model cannot decide: " + m.Reason
		default:
			return "a difference left suspect"
		}
	}
	return ""
}

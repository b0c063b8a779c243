package wss

import (
	"context"
	"fmt"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Validate checks the group flags of `txlab fuzz` (--orders, --max-txns,
// --max-stmts); the zero config is `txlab run`'s, which generates no
// groups.
func (g GroupConfig) Validate() error {
	switch {
	case g == GroupConfig{}:
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

// Group implements oracle.Grouper: one group's submitted orders.
func (o *Oracle) Group(seed uint64, cfg gen.Config) []*testcase.Case {
	gc := o.Groups
	gc.Dialect = cfg.Dialect
	gc.NoSharedLocks = cfg.NoSharedLocks
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
	if out.Skipped != "" {
		// Said, not silent: the case waited out the hang bound and WSS
		// could not compare it.
		notes = append(notes, fmt.Sprintf("wss: not judged: %s within the hang bound (--hang-timeout %v)", out.Skipped, opt.Hang()))
	}
	return &oracle.Judgement{Findings: out.Findings, Evidence: out.Bundles(), Notes: notes}, nil
}

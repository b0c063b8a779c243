package wss

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Entry registers WSS with the command line: its flags shape the generated
// groups.
var Entry = oracle.Entry{
	Name:    Name,
	Help:    "WriteCheck: final state vs the first-commit-first serial schedule",
	Default: true,
	Flags: func(fs *pflag.FlagSet, generating bool) oracle.Factory {
		f := &factory{}
		if generating {
			fs.IntVar(&f.groups.Orders, "orders", 3, "wss: submitted orders generated per group, 1–20 (e.g. --orders 5)")
			fs.IntVar(&f.groups.MaxTxns, "max-txns", 5, "wss: transactions per group, 2–5 (e.g. --max-txns 3)")
			fs.IntVar(&f.groups.MaxStmts, "max-stmts", 5, "wss: statements per explicit transaction, 1–10 (e.g. --max-stmts 3)")
		}
		return f
	},
}

type factory struct{ groups GroupConfig }

func (f *factory) Validate(*oracle.Common) error {
	g := f.groups
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

func (f *factory) Free() bool { return false }

func (f *factory) New(_ context.Context, env oracle.Env) (any, error) {
	return &Oracle{Options: Options{Settings: env.Settings, Model: env.Model, Memo: &RunMemo{}}, Groups: f.groups}, nil
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

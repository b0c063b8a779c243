package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/cmd/txlab/internal/registry"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
)

// oracles is every oracle txlab offers, in the order they run.
var oracles = registry.All()

// oracleFlags are --oracle, the settings every oracle shares, and each
// registered oracle's own flags.
type oracleFlags struct {
	list  string
	model string
	out   string
	// suppress are the --suppress files; keepKnown writes bundles for
	// the findings they match.
	suppress    []string
	keepKnown   bool
	keepAllowed bool
	supp        *report.Suppressions
	cmd         *cobra.Command // for the warnings of validate
	common      registry.Common
	bound       *registry.Bound
	sel         *registry.Selection
	// writer is the one writer of the run's bundles: the oracles only
	// return their findings, the command hands them to it.
	writer *report.Writer
	// built are what build made, for close.
	built    []oracle.CaseOracle
	checkers []*conform.Checker
	settings map[string]string
}

func (o *oracleFlags) register(cmd *cobra.Command, generating bool) {
	f := cmd.Flags()
	f.StringVar(&o.list, "oracle", "", oracles.Help())
	f.StringVar(&o.out, "out", report.DefaultDir, "directory for finding bundles (case.txn, report.txt, report.json), one per cause; txlab run of a\nbundle writes none unless --out is given (e.g. --out /tmp/findings)")
	f.StringVar(&o.model, "model", "", "judge against a textbook model instead of what the DBMS documents: an isolation level or\nstrict-serializable; every anomaly it forbids is a bug, nothing else is a finding (e.g. --model serializable)")
	f.BoolVar(&o.common.Strict, "strict", false, "every violation of the level's textbook (Adya) definition is a bug, even where the DBMS\ndocuments it (e.g. --strict)")
	if generating {
		f.IntVar(&o.common.Sessions, "sessions", 0, "concurrent sessions of a free-running oracle: mt (default 8), isorel --mode stress (2–5, default 4)\n(e.g. --sessions 16)")
	}
	o.bound = oracles.Bind(f, generating)
}

// registerSuppress adds --suppress and --keep-known (run and fuzz).
func (o *oracleFlags) registerSuppress(cmd *cobra.Command) {
	o.cmd = cmd
	f := cmd.Flags()
	f.StringArrayVar(&o.suppress, "suppress", nil, "file of known problems, repeatable: one known-bug id (txlab bugs list) or finding signature\n(as report.json prints it; * matches anything) per line; a finding it matches gets verdict\nknown: printed and counted, no bundle, exit 0 (e.g. --suppress known.txt)")
	f.BoolVar(&o.keepKnown, "keep-known", false, "write bundles for findings --suppress matched too (e.g. --keep-known)")
	f.BoolVar(&o.keepAllowed, "keep-allowed", false, "write bundles for allowed findings (documented behaviour) too; without it they are only counted\n(e.g. --keep-allowed)")
}

// validate resolves --oracle and checks every oracle flag before any server
// is started.
func (o *oracleFlags) validate() error {
	m, err := semantics.ParseModel(o.model)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	o.common.Model = m
	sel, err := o.bound.Select(o.list, &o.common)
	if err != nil {
		return err
	}
	o.sel = sel
	if len(o.suppress) > 0 {
		supp, warnings, err := report.ReadSuppressions(o.suppress, bugs.Suppression)
		if err != nil {
			return err
		}
		for _, w := range warnings {
			fmt.Fprintf(o.cmd.ErrOrStderr(), "txlab: warning: %s\n", w)
		}
		o.supp = supp
	}
	return nil
}

// validateForCases is validate for the commands that judge given cases
// (run, bugs test), which a free-running workload cannot do.
func (o *oracleFlags) validateForCases() error {
	if err := o.validate(); err != nil {
		return err
	}
	if o.sel.Free() {
		return fmt.Errorf("--oracle %s runs a workload of its own: use it with txlab fuzz", o.list)
	}
	return nil
}

// build makes the chosen oracles for target t. The semantics settings are
// read from the server, with --set on top.
func (o *oracleFlags) build(ctx context.Context, g *globalFlags, t target.Target) ([]oracle.CaseOracle, oracle.Workload, error) {
	if o.sel == nil {
		return nil, nil, fmt.Errorf("oracles used before their flags were validated")
	}
	// Asked once at the start, like connecting, and bounded the same way.
	sctx, cancel := context.WithTimeout(ctx, g.connectTimeout)
	settings, err := semantics.ServerSettings(sctx, t, g.settings)
	cancel()
	if err != nil {
		if ctx.Err() == nil && sctx.Err() != nil {
			if aerr := target.CheckAlive(ctx, t, target.PingTimeout(g.hangTimeout)); aerr != nil {
				return nil, nil, aerr
			}
		}
		return nil, nil, err
	}
	info := t.Info()
	o.writer = &report.Writer{Dir: o.out, Suppress: o.supp, KeepKnown: o.keepKnown, KeepAllowed: o.keepAllowed, Target: info.DBMS + " " + info.Version,
		DB: g.targetRecord(info), Replay: g.replayFlags(o.common), KnownBug: bugs.CauseOf}
	o.settings = settings
	o.built, o.checkers = nil, nil
	return o.buildSet(ctx)
}

// buildSet makes one set of the chosen oracles with a model checker of its
// own. The oracles only judge: what they return goes to the one writer
// (fuzz.Options.Writer, replay.Options.Writer, bugs.Test), which they may
// only ask whether a signature was recorded already.
func (o *oracleFlags) buildSet(ctx context.Context) ([]oracle.CaseOracle, oracle.Workload, error) {
	checker := &conform.Checker{Settings: o.settings}
	o.checkers = append(o.checkers, checker)
	cases, work, err := o.sel.Build(ctx, registry.Env{Common: o.common, Settings: o.settings, Seen: o.writer.Seen, Model: checker})
	o.built = append(o.built, cases...)
	return cases, work, err
}

// perWorker gives each of n fuzz workers a set of the case oracles of its
// own: first the set build made, then n-1 more, so that what an oracle
// keeps beside a target (its caches, the model's evaluator sessions,
// IsoRel's sibling schema) is one worker's.
func (o *oracleFlags) perWorker(ctx context.Context, first []oracle.CaseOracle, n int) ([][]oracle.CaseOracle, error) {
	if len(first) == 0 {
		return nil, nil
	}
	sets := [][]oracle.CaseOracle{first}
	for len(sets) < n {
		cases, _, err := o.buildSet(ctx)
		if err != nil {
			return nil, err
		}
		sets = append(sets, cases)
	}
	return sets, nil
}

// close releases the connections the oracles opened for themselves
// (IsoRel's sibling schema, the model's evaluator sessions), before the
// targets close.
func (o *oracleFlags) close() {
	for _, c := range o.built {
		if cl, ok := c.(io.Closer); ok {
			cl.Close()
		}
	}
	for _, c := range o.checkers {
		c.Close()
	}
}

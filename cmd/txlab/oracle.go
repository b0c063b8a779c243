package main

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/cmd/txlab/internal/registry"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
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
	// sets are the oracle sets build made, for perWorker and close.
	sets *registry.Sets
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
			fmt.Fprintf(o.cmd.ErrOrStderr(), "txlab: warning: %s\n", termsafe.Text(w))
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
	db := report.TargetDB(g.db, info, g.settings)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		db.Server = append(db.Server, k+"="+settings[k])
	}
	o.writer = &report.Writer{Dir: o.out, Suppress: o.supp, KeepKnown: o.keepKnown, KeepAllowed: o.keepAllowed, Target: info.DBMS + " " + info.Version,
		DB: db, Replay: report.CommonReplay(g.db, g.settings, string(o.common.Model), o.common.Strict),
		KnownBug: bugs.CauseOf}
	o.sets = o.sel.Sets(registry.Env{Common: o.common, Settings: settings, Seen: o.writer.Seen})
	return o.sets.Build(ctx)
}

// close releases the connections the oracles opened for themselves,
// before the targets close.
func (o *oracleFlags) close() {
	if o.sets != nil {
		o.sets.Close()
	}
}

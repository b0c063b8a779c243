package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/replay"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
)

// oracleFlags select and tune the oracle of `run` and `fuzz`.
type oracleFlags struct {
	name     string
	out      string
	orders   int
	maxTxns  int
	maxStmts int
	writer   *report.Writer
}

func (o *oracleFlags) register(cmd *cobra.Command, generating bool) {
	f := cmd.Flags()
	f.StringVar(&o.name, "oracle", "none", "oracle that judges each case: none (run only) or wss (WriteCheck:\nfinal state vs first-commit-first serial schedule) (e.g. --oracle wss)")
	f.StringVar(&o.out, "out", report.DefaultDir, "directory for finding bundles (case.txn, report.txt, report.json) (e.g. --out /tmp/findings)")
	if generating {
		f.IntVar(&o.orders, "orders", 3, "wss: submitted orders generated per group (e.g. --orders 5)")
		f.IntVar(&o.maxTxns, "max-txns", 5, "wss: transactions per group, 2–5 (e.g. --max-txns 3)")
		f.IntVar(&o.maxStmts, "max-stmts", 5, "wss: statements per explicit transaction, 1–10 (e.g. --max-stmts 3)")
	}
}

// validate rejects an unknown oracle before any server is started.
func (o *oracleFlags) validate() error {
	switch o.name {
	case "none", "", wss.Name:
		return nil
	}
	return fmt.Errorf("unknown oracle %q: want none or wss", o.name)
}

// fuzzOracle returns the campaign's oracle for target t (nil = run only).
// The semantics settings are read from the server, with --set on top.
func (o *oracleFlags) fuzzOracle(ctx context.Context, g *globalFlags, t target.Target) (fuzz.Oracle, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.name == "none" || o.name == "" {
		return nil, nil
	}
	settings, err := semantics.ServerSettings(ctx, t, g.settings)
	if err != nil {
		return nil, err
	}
	o.writer = &report.Writer{Dir: o.out}
	return &wss.Oracle{
		Options: wss.Options{Settings: settings},
		Groups:  wss.GroupConfig{MaxTxns: o.maxTxns, MaxStmts: o.maxStmts, Orders: o.orders},
		Writer:  o.writer,
	}, nil
}

// check returns the per-case check of `run` (nil = run only).
func (o *oracleFlags) check(ctx context.Context, g *globalFlags, t target.Target) (replay.CheckFunc, error) {
	orc, err := o.fuzzOracle(ctx, g, t)
	if err != nil || orc == nil {
		return nil, err
	}
	return orc.Check, nil
}

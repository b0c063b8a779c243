package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/replay"
	"github.com/txlab/txlab/report"
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

// settings turns --set key=value flags into the map the semantics table reads.
func settingsMap(set []string) map[string]string {
	m := map[string]string{}
	for _, kv := range set {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return m
}

// fuzzOracle returns the campaign's oracle (nil = run only).
func (o *oracleFlags) fuzzOracle(g *globalFlags) (fuzz.Oracle, error) {
	switch o.name {
	case "none", "":
		return nil, nil
	case wss.Name:
		o.writer = &report.Writer{Dir: o.out}
		return &wss.Oracle{
			Options: wss.Options{Settings: settingsMap(g.settings)},
			Groups:  wss.GroupConfig{MaxTxns: o.maxTxns, MaxStmts: o.maxStmts, Orders: o.orders},
			Writer:  o.writer,
		}, nil
	}
	return nil, fmt.Errorf("unknown oracle %q: want none or wss", o.name)
}

// check returns the per-case check of `run` (nil = run only).
func (o *oracleFlags) check(g *globalFlags) (replay.CheckFunc, error) {
	orc, err := o.fuzzOracle(g)
	if err != nil || orc == nil {
		return nil, err
	}
	return orc.Check, nil
}

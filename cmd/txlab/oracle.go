package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/oracle/isorel"
	"github.com/txlab/txlab/oracle/mt"
	"github.com/txlab/txlab/oracle/mt/campaign"
	"github.com/txlab/txlab/oracle/mt/workload"
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
	model    string
	strict   bool
	mode     string
	mt       workload.Config
	dist     string
	writer   *report.Writer
}

// oracleNames lists the oracles for errors and help.
const oracleNames = "none, wss, isorel or mt"

func (o *oracleFlags) register(cmd *cobra.Command, generating bool) {
	f := cmd.Flags()
	help := "oracle that judges each case: none (run only), wss (WriteCheck: final state vs\nfirst-commit-first serial schedule) or isorel (dependency cycles from hidden row versions) (e.g. --oracle wss)"
	if generating {
		help = "oracle: none (run only), wss (WriteCheck: final state vs first-commit-first\nserial schedule), isorel (dependency cycles from hidden row versions) or mt\n(mini-transaction workload checked for SER/SI) (e.g. --oracle isorel)"
	}
	f.StringVar(&o.name, "oracle", "none", help)
	if !generating {
		f.StringVar(&o.model, "model", "", "isorel: judge against what the DBMS promises at this stronger level (e.g. --model serializable)")
		f.BoolVar(&o.strict, "strict", false, "isorel: every violation of the level's textbook (Adya) definition is a bug (e.g. --strict)")
	}
	f.StringVar(&o.out, "out", report.DefaultDir, "directory for finding bundles (case.txn, report.txt, report.json) (e.g. --out /tmp/findings)")
	if generating {
		f.IntVar(&o.orders, "orders", 3, "wss: submitted orders generated per group (e.g. --orders 5)")
		f.IntVar(&o.maxTxns, "max-txns", 5, "wss: transactions per group, 2–5 (e.g. --max-txns 3)")
		f.IntVar(&o.maxStmts, "max-stmts", 5, "wss: statements per explicit transaction, 1–10 (e.g. --max-stmts 3)")
		d := workload.DefaultConfig()
		f.StringVar(&o.model, "model", "", "isorel, mt: judge against a stronger model than the DBMS documents (violations are then bugs);\nisorel: an isolation level; mt: serializable, snapshot or strict-serializable (e.g. --model serializable)")
		f.StringVar(&o.mode, "mode", isorel.Interleaved, "isorel: interleaved (deterministic protocol, exact replayable cases) or stress (free-running\nsessions, --sessions 2–5) (e.g. --mode stress)")
		f.BoolVar(&o.strict, "strict", false, "every violation of the level's textbook (Adya) definition is a bug, even where the DBMS\ndocuments it (e.g. --strict)")
		f.BoolVar(&o.mt.LWT, "lwt", false, "mt: lightweight transactions (single-statement compare-and-set), checked for linearizability")
		f.IntVar(&o.mt.Sessions, "sessions", 0, fmt.Sprintf("concurrent sessions: mt (default %d), isorel --mode stress (2–5, default 4) (e.g. --sessions 16)", d.Sessions))
		f.IntVar(&o.mt.Txns, "txns", d.Txns, "mt: mini-transactions per round; each round is checked when it ends (e.g. --txns 100000)")
		f.IntVar(&o.mt.Keys, "keys", d.Keys, "mt: rows the workload updates; fewer keys, more conflicts (e.g. --keys 100)")
		f.Float64Var(&o.mt.ReadOnlyRatio, "read-only-ratio", d.ReadOnlyRatio, "mt: share of read-only mini-transactions, 0–1 (e.g. --read-only-ratio 0.5)")
		f.StringVar(&o.dist, "distribution", string(d.Distribution), "mt: key distribution: uniform, zipfian, hotspot or exponential (e.g. --distribution zipfian)")
	}
}

// validate rejects an unknown oracle or bad oracle flags before any server
// is started.
func (o *oracleFlags) validate() error {
	switch o.name {
	case "none", "", wss.Name:
		if o.model != "" || o.mt.LWT || o.strict {
			return fmt.Errorf("--model, --strict and --lwt apply to --oracle isorel or mt")
		}
		return nil
	case isorel.Name:
		if o.mt.LWT {
			return fmt.Errorf("--lwt applies to --oracle mt")
		}
		if o.model != "" {
			l, err := target.ParseLevel(o.model)
			if err != nil {
				return fmt.Errorf("--model: %w", err)
			}
			o.model = string(l)
		}
		switch o.mode {
		case isorel.Interleaved, "":
		case isorel.Stress:
			if o.mt.Sessions == 0 {
				o.mt.Sessions = 4
			}
			if o.mt.Sessions < 2 || o.mt.Sessions > 5 {
				return fmt.Errorf("--sessions %d: stress mode runs 2 to 5 sessions", o.mt.Sessions)
			}
		default:
			return fmt.Errorf("--mode %q: want interleaved or stress", o.mode)
		}
		return nil
	case campaign.Name:
		if o.model != "" {
			m, err := mt.ParseModel(o.model)
			if err != nil {
				return err
			}
			if m == mt.Linearizable {
				return fmt.Errorf("--model linearizable: use --lwt, which checks lightweight transactions for linearizability")
			}
			o.model = string(m)
		}
		d, err := workload.ParseDistribution(o.dist)
		if err != nil {
			return err
		}
		o.mt.Distribution = d
		return o.mt.Validate()
	}
	return fmt.Errorf("unknown oracle %q: want %s", o.name, oracleNames)
}

// free reports whether the oracle is a free-running workload (fuzz.Workload)
// rather than a per-case oracle.
func (o *oracleFlags) free() bool {
	return o.name == campaign.Name || (o.name == isorel.Name && o.mode == isorel.Stress)
}

// fuzzOracle returns the campaign's per-case oracle for target t (nil = run
// only). The semantics settings are read from the server, with --set on top.
func (o *oracleFlags) fuzzOracle(ctx context.Context, g *globalFlags, t target.Target) (fuzz.Oracle, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.name == "none" || o.name == "" {
		return nil, nil
	}
	if o.free() {
		return nil, fmt.Errorf("--oracle %s runs free, not case by case", o.name)
	}
	settings, err := o.judging(ctx, g, t)
	if err != nil {
		return nil, err
	}
	if o.name == isorel.Name {
		return &isorel.Oracle{Options: o.isorelOptions(settings)}, nil
	}
	return &wss.Oracle{
		Options: wss.Options{Settings: settings},
		Groups:  wss.GroupConfig{MaxTxns: o.maxTxns, MaxStmts: o.maxStmts, Orders: o.orders},
		Writer:  o.writer,
	}, nil
}

// workload returns the free-running oracle for target t.
func (o *oracleFlags) workload(ctx context.Context, g *globalFlags, t target.Target) (fuzz.Workload, error) {
	settings, err := o.judging(ctx, g, t)
	if err != nil {
		return nil, err
	}
	if o.name == isorel.Name {
		return &isorel.StressOracle{Options: o.isorelOptions(settings), Sessions: o.mt.Sessions}, nil
	}
	return &campaign.Oracle{Workload: o.mt, Model: mt.Model(o.model), Strict: o.strict, Settings: settings, Writer: o.writer}, nil
}

// judging reads the server settings the semantics table depends on (with
// --set on top) and opens the bundle writer: what every oracle needs to
// judge and report.
func (o *oracleFlags) judging(ctx context.Context, g *globalFlags, t target.Target) (map[string]string, error) {
	settings, err := semantics.ServerSettings(ctx, t, g.settings)
	if err != nil {
		return nil, err
	}
	o.writer = &report.Writer{Dir: o.out}
	return settings, nil
}

func (o *oracleFlags) isorelOptions(settings map[string]string) isorel.Options {
	return isorel.Options{Settings: settings, Model: o.model, Strict: o.strict, Writer: o.writer}
}

// check returns the per-case check of `run` (nil = run only).
func (o *oracleFlags) check(ctx context.Context, g *globalFlags, t target.Target) (replay.CheckFunc, error) {
	orc, err := o.fuzzOracle(ctx, g, t)
	if err != nil || orc == nil {
		return nil, err
	}
	return orc.Check, nil
}

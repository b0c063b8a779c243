package registry

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/isorel"
	"github.com/txlab/txlab/oracle/mt/mtoracle"
	"github.com/txlab/txlab/oracle/mt/workload"
	"github.com/txlab/txlab/oracle/troc"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/semantics"
)

// All is every oracle txlab offers, in the order they run.
func All() *Registry { return NewRegistry(WSS, IsoRel, Troc, MT) }

// caseOnly is the half of a Factory a case oracle has no use for.
type caseOnly struct{}

func (caseOnly) Free() bool { return false }
func (caseOnly) NewWorkload(context.Context, Env) (oracle.Workload, error) {
	return nil, fmt.Errorf("a case oracle runs no workload")
}

// WSS registers WSS: its flags shape the generated groups.
var WSS = Entry{
	Name:    wss.Name,
	Help:    "WriteCheck: final state vs the first-commit-first serial schedule",
	Default: true,
	Flags: func(fs *pflag.FlagSet, generating bool) Factory {
		f := &wssFactory{}
		if generating {
			fs.IntVar(&f.groups.Orders, "orders", 3, "wss: submitted orders generated per group, 1–20 (e.g. --orders 5)")
			fs.IntVar(&f.groups.MaxTxns, "max-txns", 5, "wss: transactions per group, 2–5 (e.g. --max-txns 3)")
			fs.IntVar(&f.groups.MaxStmts, "max-stmts", 5, "wss: statements per explicit transaction, 1–10 (e.g. --max-stmts 3)")
		}
		return f
	},
}

type wssFactory struct {
	caseOnly
	groups wss.GroupConfig
}

func (f *wssFactory) Validate(*Common) error { return f.groups.Validate() }

func (f *wssFactory) NewCase(_ context.Context, env Env) (oracle.CaseOracle, error) {
	return &wss.Oracle{Options: wss.Options{Settings: env.Settings, Model: env.Model, Memo: &wss.RunMemo{}}, Groups: f.groups}, nil
}

// IsoRel registers IsoRel, a case oracle, or a workload with --mode stress.
var IsoRel = Entry{
	Name:    isorel.Name,
	Help:    "IsoRel: dependency cycles from hidden row versions (--mode stress: free-running sessions)",
	Default: true,
	Judges:  true,
	Flags: func(fs *pflag.FlagSet, generating bool) Factory {
		f := &isorelFactory{mode: isorel.Interleaved}
		if generating {
			fs.StringVar(&f.mode, "mode", isorel.Interleaved, "isorel: interleaved (deterministic protocol, exact replayable cases) or stress (free-running\nsessions, --sessions 2–5) (e.g. --mode stress)")
		}
		return f
	},
}

// defaultStressSessions is --sessions for IsoRel's stress mode when not
// given.
const defaultStressSessions = 4

type isorelFactory struct {
	mode     string
	model    semantics.Model
	strict   bool
	sessions int
}

func (f *isorelFactory) Validate(c *Common) error {
	f.model = c.Model
	f.strict = c.Strict
	switch f.mode {
	case isorel.Interleaved, "":
		f.mode = isorel.Interleaved
	case isorel.Stress:
		f.sessions = c.Sessions
		if f.sessions == 0 {
			f.sessions = defaultStressSessions
		}
		if f.sessions < 2 || f.sessions > 5 {
			return fmt.Errorf("--sessions %d: stress mode runs 2 to 5 sessions", f.sessions)
		}
	default:
		return fmt.Errorf("--mode %q: want interleaved or stress", f.mode)
	}
	return nil
}

func (f *isorelFactory) Free() bool { return f.mode == isorel.Stress }

func (f *isorelFactory) options(env Env) isorel.Options {
	opt := isorel.Options{Settings: env.Settings, Model: f.model, Strict: f.strict, Seen: env.Seen}
	if f.model == "" && !f.strict {
		opt.Checker = env.Model // the DBMS's documented semantics decide
	}
	return opt
}

func (f *isorelFactory) NewCase(_ context.Context, env Env) (oracle.CaseOracle, error) {
	return &isorel.Oracle{Options: f.options(env)}, nil
}

func (f *isorelFactory) NewWorkload(_ context.Context, env Env) (oracle.Workload, error) {
	return &isorel.StressOracle{Options: f.options(env), Sessions: f.sessions}, nil
}

// Troc registers Troc, which has no flags of its own.
var Troc = Entry{
	Name:    troc.Name,
	Help:    "Troc: each statement against the view its DBMS documents (row versions it must, may, must not see)",
	Default: true,
	Flags: func(*pflag.FlagSet, bool) Factory {
		return trocFactory{}
	},
}

type trocFactory struct{ caseOnly }

func (trocFactory) Validate(*Common) error { return nil }

func (trocFactory) NewCase(_ context.Context, env Env) (oracle.CaseOracle, error) {
	return &troc.Oracle{Model: env.Model}, nil
}

// MT registers the MT oracle. It runs its own workload, so it is never a
// default and always runs alone.
var MT = Entry{
	Name:   mtoracle.Name,
	Help:   "MTC: a mini-transaction workload checked for serializability or snapshot isolation",
	Judges: true,
	Flags: func(fs *pflag.FlagSet, generating bool) Factory {
		if !generating {
			return nil // no case files to judge: `txlab check` reads MT histories
		}
		f := &mtFactory{cfg: workload.DefaultConfig()}
		d := f.cfg
		fs.BoolVar(&f.cfg.LWT, "lwt", false, "mt: lightweight transactions (single-statement compare-and-set), checked for linearizability")
		fs.IntVar(&f.cfg.Txns, "txns", d.Txns, "mt: mini-transactions per round; each round is checked when it ends (e.g. --txns 100000)")
		fs.IntVar(&f.cfg.Keys, "keys", d.Keys, "mt: rows the workload updates; fewer keys, more conflicts (e.g. --keys 100)")
		fs.Float64Var(&f.cfg.ReadOnlyRatio, "read-only-ratio", d.ReadOnlyRatio, "mt: share of read-only mini-transactions, 0–1 (e.g. --read-only-ratio 0.5)")
		fs.StringVar(&f.dist, "distribution", string(d.Distribution), "mt: key distribution: uniform, zipfian, hotspot or exponential (e.g. --distribution zipfian)")
		return f
	},
}

type mtFactory struct {
	cfg    workload.Config
	dist   string
	model  semantics.Model
	strict bool
}

func (f *mtFactory) Validate(c *Common) error {
	f.model = c.Model
	f.strict = c.Strict
	if c.Sessions != 0 {
		f.cfg.Sessions = c.Sessions
	}
	d, err := workload.ParseDistribution(f.dist)
	if err != nil {
		return err
	}
	f.cfg.Distribution = d
	return f.cfg.Validate()
}

func (f *mtFactory) Free() bool { return true }

func (f *mtFactory) NewCase(context.Context, Env) (oracle.CaseOracle, error) {
	return nil, fmt.Errorf("mt runs a workload of its own")
}

func (f *mtFactory) NewWorkload(_ context.Context, env Env) (oracle.Workload, error) {
	return &mtoracle.Oracle{Workload: f.cfg, Model: f.model, Strict: f.strict, Settings: env.Settings}, nil
}

package mtoracle

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/mt/workload"
	"github.com/txlab/txlab/semantics"
)

// Entry registers the MT oracle with the command line. It runs its own
// workload, so it is never a default and always runs alone.
var Entry = oracle.Entry{
	Name:   Name,
	Help:   "MTC: a mini-transaction workload checked for serializability or snapshot isolation",
	Judges: true,
	Flags: func(fs *pflag.FlagSet, generating bool) oracle.Factory {
		if !generating {
			return nil // no case files to judge: `txlab check` reads MT histories
		}
		f := &factory{cfg: workload.DefaultConfig()}
		d := f.cfg
		fs.BoolVar(&f.cfg.LWT, "lwt", false, "mt: lightweight transactions (single-statement compare-and-set), checked for linearizability")
		fs.IntVar(&f.cfg.Txns, "txns", d.Txns, "mt: mini-transactions per round; each round is checked when it ends (e.g. --txns 100000)")
		fs.IntVar(&f.cfg.Keys, "keys", d.Keys, "mt: rows the workload updates; fewer keys, more conflicts (e.g. --keys 100)")
		fs.Float64Var(&f.cfg.ReadOnlyRatio, "read-only-ratio", d.ReadOnlyRatio, "mt: share of read-only mini-transactions, 0–1 (e.g. --read-only-ratio 0.5)")
		fs.StringVar(&f.dist, "distribution", string(d.Distribution), "mt: key distribution: uniform, zipfian, hotspot or exponential (e.g. --distribution zipfian)")
		return f
	},
}

type factory struct {
	cfg    workload.Config
	dist   string
	model  semantics.Model
	strict bool
}

func (f *factory) Validate(c *oracle.Common) error {
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

func (f *factory) Free() bool { return true }

func (f *factory) New(_ context.Context, env oracle.Env) (any, error) {
	return &Oracle{Workload: f.cfg, Model: f.model, Strict: f.strict, Settings: env.Settings}, nil
}

package isorel

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/semantics"
)

// Entry registers IsoRel with the command line.
var Entry = oracle.Entry{
	Name:    Name,
	Help:    "IsoRel: dependency cycles from hidden row versions (--mode stress: free-running sessions)",
	Default: true,
	Judges:  true,
	Flags: func(fs *pflag.FlagSet, generating bool) oracle.Factory {
		f := &factory{mode: Interleaved}
		if generating {
			fs.StringVar(&f.mode, "mode", Interleaved, "isorel: interleaved (deterministic protocol, exact replayable cases) or stress (free-running\nsessions, --sessions 2–5) (e.g. --mode stress)")
		}
		return f
	},
}

// defaultStressSessions is --sessions for stress mode when not given.
const defaultStressSessions = 4

type factory struct {
	mode     string
	model    semantics.Model
	strict   bool
	sessions int
}

func (f *factory) Validate(c *oracle.Common) error {
	f.model = c.Model
	f.strict = c.Strict
	switch f.mode {
	case Interleaved, "":
		f.mode = Interleaved
	case Stress:
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

func (f *factory) Free() bool { return f.mode == Stress }

func (f *factory) New(_ context.Context, env oracle.Env) (any, error) {
	opt := Options{Settings: env.Settings, Model: f.model, Strict: f.strict, Seen: env.Seen}
	if f.model == "" && !f.strict {
		opt.Checker = env.Model // the DBMS's documented semantics decide
	}
	if f.Free() {
		return &StressOracle{Options: opt, Sessions: f.sessions}, nil
	}
	return &Oracle{Options: opt}, nil
}

package bugs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
)

// Statuses of a bug at one level.
const (
	Reproduces    = "reproduces"     // an oracle says bug
	NotReproduced = "not-reproduced" // the case ran, no oracle says bug
	Error         = "error"          // the case could not run (setup, connection)
	Unsupported   = "unsupported"    // the target has no such level
)

// LevelResult is one bug at one level.
type LevelResult struct {
	Level  target.Level `json:"level"`
	Status string       `json:"status"`
	// Rules are the rules of the bug findings (Reproduces).
	Rules []string `json:"rules,omitempty"`
	Error string   `json:"error,omitempty"`
}

// Result is one bug of the corpus run on a target.
type Result struct {
	Entry
	Target string        `json:"target"` // DBMS and version
	Levels []LevelResult `json:"levels"`
}

// LevelsOr returns the levels e says the bug shows at (its levels header),
// else its case's isolation, else def.
func (e Entry) LevelsOr(def target.Level) ([]target.Level, error) {
	var out []target.Level
	for _, f := range strings.Split(e.Levels, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		l, err := target.ParseLevel(f)
		if err != nil {
			return nil, fmt.Errorf("%s: levels: %w", e.File, err)
		}
		out = append(out, l)
	}
	switch {
	case len(out) > 0:
	case e.Case.Isolation != "":
		out = []target.Level{e.Case.Isolation}
	default:
		out = []target.Level{def}
	}
	return out, nil
}

// Test runs each entry on t through the oracles at each of the given
// levels (none: each entry's own, LevelsOr) and says whether it reproduces
// there. An error that is not the case's own (a lost connection) ends the
// test.
func Test(ctx context.Context, t target.Target, entries []Entry, levels []target.Level, oracles []oracle.CaseOracle, opt executor.Options) ([]Result, error) {
	info := t.Info()
	var out []Result
	for _, e := range entries {
		levels := levels
		if len(levels) == 0 {
			var err error
			if levels, err = e.LevelsOr(t.DefaultLevel()); err != nil {
				return out, err
			}
		}
		r := Result{Entry: e, Target: info.DBMS + " " + info.Version}
		for _, l := range levels {
			lr := LevelResult{Level: l}
			if !slices.Contains(t.Levels(), l) {
				lr.Status = Unsupported
				r.Levels = append(r.Levels, lr)
				continue
			}
			o := opt
			o.Isolation = l
			res, err := oracle.CheckCase(ctx, t, e.Case, oracles, o, false)
			var setup *executor.SetupError
			switch {
			case errors.As(err, &setup):
				lr.Status, lr.Error = Error, err.Error()
			case err != nil:
				return out, fmt.Errorf("%s at %s: %w", e.File, l, err)
			default:
				lr.Status = NotReproduced
				for _, f := range res.Findings {
					if f.Verdict == report.Bug {
						lr.Status = Reproduces
						if !slices.Contains(lr.Rules, f.Rule) {
							lr.Rules = append(lr.Rules, f.Rule)
						}
					}
				}
			}
			r.Levels = append(r.Levels, lr)
		}
		out = append(out, r)
	}
	return out, nil
}

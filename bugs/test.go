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
	"github.com/txlab/txlab/verdict"
)

// Statuses of a bug at one level.
const (
	Reproduces    = "reproduces"     // every clause of the case's expect header holds
	NotReproduced = "not-reproduced" // the case ran, a clause does not hold
	Error         = "error"          // the case could not run (setup, connection)
	Unsupported   = "unsupported"    // the target has no such level
	Refused       = "refused"        // the scope check refused the case (it administers the server)
)

// LevelResult is one bug at one level.
type LevelResult struct {
	Level  target.Level `json:"level"`
	Status string       `json:"status"`
	// Verdict is the strongest oracle verdict on the run (bug, suspect,
	// allowed, …; none without findings) and Rules the rules of its bug
	// findings.
	Verdict string   `json:"verdict"`
	Rules   []string `json:"rules,omitempty"`
	// Undecided maps each oracle that judged the run but not to its end
	// to why (troc: "not modelled: foreign-key"): a documented behaviour
	// the model stops on is not yet one it explains.
	Undecided map[string]string `json:"undecided,omitempty"`
	// Failed are the expect clauses that did not hold, with what was seen.
	Failed []string `json:"failed,omitempty"`
	Error  string   `json:"error,omitempty"`
	// Recorded is the status the corpus's status header holds for this
	// DBMS version and level ("" when none); Changed says it differs.
	Recorded string `json:"recorded,omitempty"`
	Changed  bool   `json:"changed,omitempty"`
}

// Result is one bug of the corpus run on a target.
type Result struct {
	Entry
	// DB is the --db spec the target was opened from (postgres@18), set by
	// the caller; Target the DBMS and version the server reported.
	DB     string        `json:"db,omitempty"`
	Target string        `json:"target"`
	Levels []LevelResult `json:"levels"`
}

// Progress is where Test is: about to run bug Entry at Level, the Nth of
// Of runs (a bug at one level is one run).
type Progress struct {
	N, Of int
	Entry Entry
	Level target.Level
}

// strongest returns the most severe verdict among the findings, "none"
// without findings.
func strongest(fs []verdict.Finding) string {
	best, rank := "none", 0
	for _, f := range fs {
		if r := verdictRank[f.Verdict]; r > rank {
			best, rank = string(f.Verdict), r
		}
	}
	return best
}

var verdictRank = map[verdict.Verdict]int{verdict.Allowed: 1, verdict.Known: 2, verdict.Suspect: 3, verdict.Bug: 4}

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
// there, calling progress (when not nil) before each run; w (nil = none)
// saves the bundles of the findings. An error that is
// not the case's own (a lost connection) ends the test.
func Test(ctx context.Context, t target.Target, entries []Entry, levels []target.Level, oracles []oracle.CaseOracle, w *report.Writer, opt executor.Options, progress func(Progress)) ([]Result, error) {
	info := t.Info()
	perEntry := make([][]target.Level, len(entries))
	total := 0
	for i, e := range entries {
		perEntry[i] = levels
		if len(levels) == 0 {
			var err error
			if perEntry[i], err = e.LevelsOr(executor.ConcreteOn(t, "")); err != nil {
				return nil, err
			}
		}
		total += len(perEntry[i])
	}
	var out []Result
	n := 0
	for i, e := range entries {
		r := Result{Entry: e, Target: info.DBMS + " " + info.Version}
		rec, _ := Lookup(e.Status, info)
		for _, l := range perEntry[i] {
			if n++; progress != nil {
				progress(Progress{N: n, Of: total, Entry: e, Level: l})
			}
			lr := LevelResult{Level: l, Recorded: rec.Levels[l]}
			if !slices.Contains(t.Levels(), l) {
				lr.Status = Unsupported
			} else {
				o := opt
				o.Isolation = l
				// show: the expect clauses read the plain execution.
				res, err := oracle.CheckCase(ctx, t, e.Case, oracles, o, true)
				// The oracles only judge; their bundles are saved here, even
				// when a later oracle failed.
				if serr := w.Save(res.Findings, res.Evidence); serr != nil && err == nil {
					err = serr
				}
				var setup *executor.SetupError
				var scope *executor.ScopeError
				switch {
				case errors.As(err, &scope):
					lr.Status, lr.Error = Refused, err.Error()
				case errors.As(err, &setup):
					lr.Status, lr.Error = Error, err.Error()
				case err != nil:
					return out, fmt.Errorf("%s at %s: %w", e.File, l, err)
				case res.JudgeTimeout != "":
					// Not judged: whether it reproduces is unknown.
					lr.Status, lr.Error = Error, fmt.Sprintf("%s did not finish judging within the case's bound", res.JudgeTimeout)
				default:
					lr.Verdict = strongest(res.Findings)
					lr.Undecided = res.Undecided
					for _, f := range res.Findings {
						if f.Verdict == verdict.Bug && !slices.Contains(lr.Rules, f.Rule) {
							lr.Rules = append(lr.Rules, f.Rule)
						}
					}
					lr.Status = NotReproduced
					var holds bool
					if holds, lr.Failed = e.Expect.Check(res.Result, res.Findings); holds {
						lr.Status = Reproduces
					}
				}
			}
			lr.Changed = lr.Recorded != "" && lr.Recorded != lr.Status
			r.Levels = append(r.Levels, lr)
		}
		out = append(out, r)
	}
	return out, nil
}

// Package replay implements `txlab run`: it replays case files on a target
// through the execution protocol and prints each actual schedule and final
// state, as text or as one JSON object per case.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Options control a replay.
type Options struct {
	Exec executor.Options
	// Oracles judge every case; none = the cases only run.
	Oracles []oracle.CaseOracle
	// Writer saves the bundles of the oracles' findings; nil = none.
	Writer *report.Writer
	JSON   bool      // one JSON object per case (JSON Lines)
	Out    io.Writer // where schedules go
	// Errs receives one line per case that could not be read or set up;
	// nil = Out.
	Errs io.Writer
	// Verbose also prints each oracle's own execution (IsoRel's rewritten
	// statements) after the plain one.
	Verbose bool
}

// TargetInfo names the DBMS a case ran on.
type TargetInfo struct {
	DBMS    string `json:"dbms"`
	Version string `json:"version"`
}

// CaseResult is the outcome of one case, as printed by --json.
type CaseResult struct {
	Case            string            `json:"case"`
	Target          TargetInfo        `json:"target"`
	Isolation       string            `json:"isolation"`
	IsolationByConn map[string]string `json:"isolation_by_conn,omitempty"`
	Setup           []executor.Event  `json:"setup"`
	Events          []executor.Event  `json:"events"`
	FinalState      target.State      `json:"final_state"`
	Oracles         []string          `json:"oracles"`
	Findings        []verdict.Finding `json:"findings"`
	Notes           []string          `json:"notes,omitempty"`
	Hang            bool              `json:"hang"`
	// Truncated says why the execution is not whole (a result or the
	// final state larger than txlab keeps; executor.Result.Truncated).
	Truncated string `json:"truncated,omitempty"`
	// JudgeTimeout names the oracle whose judging the case's bound
	// ended; the case is not judged.
	JudgeTimeout string  `json:"judge_timeout,omitempty"`
	ElapsedMS    float64 `json:"elapsed_ms"`
	// Own are the oracles' own executions (IsoRel's instrumented run):
	// events name the case's statements (sql) with what was sent (sent);
	// the statements the oracle added are marked added. Text output
	// shows them with -v.
	Own []OwnJSON `json:"own,omitempty"`

	own      []oracle.OwnRun
	tooLarge bool
}

// OwnJSON is one oracle's own execution in --json output.
type OwnJSON struct {
	Oracle string           `json:"oracle"`
	Events []executor.Event `json:"events"`
}

// RunCase replays one case through the oracle pipeline and packages its
// result.
func RunCase(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options, oracles []oracle.CaseOracle, w *report.Writer) (*CaseResult, *executor.Result, error) {
	start := time.Now()
	// The plain execution is what the user sees: the statements as written,
	// without an oracle's rewriting or its own connections.
	o, err := oracle.CheckCase(ctx, t, c, oracles, opt, true)
	// What the oracles returned is saved even when a later one failed.
	if serr := w.Save(o.Findings, o.Evidence); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return nil, o.Result, fmt.Errorf("%s: %w", c.Name, err)
	}
	res := o.Result
	info := t.Info()
	out := &CaseResult{
		Case:         c.Name,
		Target:       TargetInfo{DBMS: info.DBMS, Version: info.Version},
		Setup:        nonNil(res.Setup),
		Events:       nonNil(res.Events),
		FinalState:   res.Final,
		Oracles:      append([]string{}, o.Judged...),
		Findings:     append([]verdict.Finding{}, o.Findings...),
		Notes:        append(res.Notes, o.Notes...),
		Hang:         res.Hang,
		JudgeTimeout: o.JudgeTimeout,
		ElapsedMS:    float64(time.Since(start).Microseconds()) / 1000,
		own:          o.Own,
		tooLarge:     o.TooLarge(),
		Truncated:    res.Truncated,
	}
	if res.Truncated != "" && !out.tooLarge {
		// No oracle to say it (--oracle none): said all the same.
		out.Notes = append(out.Notes, "not whole: "+res.Truncated)
	}
	for _, r := range o.Own {
		out.Own = append(out.Own, OwnJSON{Oracle: r.Oracle, Events: nonNil(r.Result.Events)})
	}
	if out.FinalState == nil {
		out.FinalState = target.State{}
	}
	levels := map[string]string{}
	for conn, l := range res.ConnLevels() {
		levels[fmt.Sprint(conn)] = string(l)
	}
	// A mixed run is shown as such, with each connection's level, rather
	// than as the one level an oracle judges it at (Result.Level).
	out.Isolation = string(res.Level())
	if res.Mixed() {
		out.Isolation, out.IsolationByConn = "mixed", levels
	}
	return out, res, nil
}

// Stats is what a batch did.
type Stats struct {
	Bugs int // findings with verdict bug
	// Failed counts the cases that could not be read, checked or set up
	// (each reported on Errs); the others ran.
	Failed int
	// Hangs counts the cases that did not finish within the hang
	// timeout, Unjudged those whose judging it ended.
	Hangs, Unjudged int
	// TooLarge counts the cases an oracle did not judge because a result
	// or the final state was larger than txlab keeps (target.Limits).
	TooLarge int
}

// RunFiles reads and replays every case file in turn and writes the
// results. A file that cannot be read or parsed, a case the scope check
// refuses and a case whose setup fails are reported on opt.Errs and the
// batch goes on; any other error (a lost connection) ends it.
func RunFiles(ctx context.Context, t target.Target, paths []string, opt Options) (Stats, error) {
	var st Stats
	errs := opt.Errs
	if errs == nil {
		errs = opt.Out
	}
	enc := json.NewEncoder(opt.Out)
	shown := 0
	for _, path := range paths {
		cr, res, err := runFile(ctx, t, path, opt, func(msg string) { fmt.Fprintf(errs, "txlab: warning: %s\n", termsafe.Text(msg)) })
		var setup *executor.SetupError
		var scope *executor.ScopeError
		var unread unreadable
		var level *target.UnsupportedLevelError
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return st, ctx.Err()
		case errors.As(err, &unread) || errors.As(err, &setup) || errors.As(err, &scope) || errors.As(err, &level):
			// A case this target cannot run (at its level, on its DBMS):
			// said, and the other files still run.
			st.Failed++
			fmt.Fprintf(errs, "txlab: %s\n", termsafe.Text(err.Error()))
			if opt.JSON {
				if err := enc.Encode(map[string]string{"case": path, "error": err.Error()}); err != nil {
					return st, err
				}
			}
			continue
		default:
			return st, err
		}
		st.Bugs += verdict.CountBugs(cr.Findings)
		if cr.Hang {
			st.Hangs++
		}
		if cr.JudgeTimeout != "" {
			st.Unjudged++
		}
		if cr.tooLarge {
			st.TooLarge++
		}
		if opt.JSON {
			if err := enc.Encode(cr); err != nil {
				return st, err
			}
			continue
		}
		if shown > 0 {
			fmt.Fprintln(opt.Out)
		}
		shown++
		WriteText(opt.Out, cr, res)
		if opt.Verbose {
			for _, r := range cr.own {
				fmt.Fprintf(opt.Out, "%s's own execution (the statements it sent):\n", termsafe.Line(r.Oracle))
				r.Result.WriteSchedule(opt.Out)
			}
		}
	}
	return st, nil
}

// unreadable is a case file that cannot be read, parsed or validated.
type unreadable struct{ error }

func (u unreadable) Unwrap() error { return u.error }

// runFile reads, checks and replays one case file; what the parser forgave,
// and a dbms header that names another DBMS than the target, go to warn.
func runFile(ctx context.Context, t target.Target, path string, opt Options, warn func(string)) (*CaseResult, *executor.Result, error) {
	c, err := report.ParseCase(path)
	if err != nil {
		return nil, nil, unreadable{err}
	}
	for _, w := range c.Warnings {
		warn(w.Error())
	}
	// The header may carry a version after the name ("mariadb 10.11.19").
	if dbms, name := t.Info().DBMS, strings.Fields(c.DBMS); len(name) > 0 && !strings.EqualFold(name[0], dbms) {
		warn(fmt.Sprintf("%s: the case says dbms %s; it runs on %s", path, c.DBMS, dbms))
	}
	if err := c.Validate(); err != nil {
		return nil, nil, unreadable{err} // the message names the file
	}
	return RunCase(ctx, t, c, opt.Exec, opt.Oracles, opt.Writer)
}

// WriteText prints one case's result for people. What the case, the
// server or the DBMS's values put in it is printed terminal-safe
// (termsafe): a case cannot make txlab print a control sequence.
func WriteText(w io.Writer, cr *CaseResult, res *executor.Result) {
	sl := termsafe.Line
	fmt.Fprintf(w, "case %s on %s %s, isolation %s", sl(cr.Case), sl(cr.Target.DBMS), sl(cr.Target.Version), sl(cr.Isolation))
	if cr.IsolationByConn != nil {
		keys := make([]string, 0, len(cr.IsolationByConn))
		for k := range cr.IsolationByConn {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, " (")
		for i, k := range keys {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%s: %s", sl(k), sl(cr.IsolationByConn[k]))
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, " (%.1f ms)\n", cr.ElapsedMS)
	fmt.Fprintf(w, "setup: %d statement%s ok\n", len(cr.Setup), english.S(len(cr.Setup)))
	fmt.Fprintln(w, "actual schedule:")
	res.WriteSchedule(w)
	if cr.Hang {
		return
	}
	fmt.Fprintln(w, "final state:")
	if res.Final == nil && res.Truncated != "" {
		// Dump refused a state past the bounds: nothing of it is shown.
		fmt.Fprintf(w, "  not kept: %s\n", sl(res.Truncated))
	}
	executor.WriteState(w, cr.FinalState)
	for _, n := range cr.Notes {
		fmt.Fprintf(w, "note: %s\n", sl(n))
	}
	for _, f := range cr.Findings {
		fmt.Fprintf(w, "finding: %s %s, verdict %s (%s): %s\n", sl(f.Oracle), sl(f.Kind), f.Verdict, sl(f.Rule), sl(f.Summary))
		if f.KnownAs != "" {
			fmt.Fprintf(w, "  known: %s\n", sl(f.KnownAs))
		}
		if f.Dir != "" {
			fmt.Fprintf(w, "  report: %s\n", sl(f.Dir))
		}
	}
}

func nonNil(evs []executor.Event) []executor.Event {
	if evs == nil {
		return []executor.Event{}
	}
	return evs
}

// Err is how a run of cases that all ran ends (exitcode): exit status 2
// for a case that failed, was not judged or did not finish within
// hangTimeout, 1 for a bug, nil otherwise.
func (st Stats) Err(hangTimeout time.Duration) error {
	switch {
	case st.Failed > 0:
		// Each failed case already has its line on stderr.
		return &exitcode.Error{Code: 2}
	case st.TooLarge > 0:
		// The output shows what was kept; no oracle judged part of a result.
		lim := target.CurrentLimits()
		return exitcode.Fault(fmt.Errorf("%s not judged: a result or the final state was larger than txlab keeps (--max-rows %d, --max-result-bytes %s)",
			english.Plural(st.TooLarge, "case"), lim.Rows, target.FormatBytes(lim.Bytes)))
	case st.Hangs > 0 || st.Unjudged > 0:
		// The output shows what ran; the case's outcome is unknown.
		var what []string
		if st.Hangs > 0 {
			what = append(what, fmt.Sprintf("%s did not finish (HANG)", english.Plural(st.Hangs, "case")))
		}
		if st.Unjudged > 0 {
			what = append(what, fmt.Sprintf("%s not judged", english.Plural(st.Unjudged, "case")))
		}
		return exitcode.Fault(fmt.Errorf("%s within --hang-timeout %v", strings.Join(what, " and "), hangTimeout))
	case st.Bugs > 0:
		return exitcode.Findings(st.Bugs)
	}
	return nil
}

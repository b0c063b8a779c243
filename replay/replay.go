// Package replay implements `txlab run`: it replays case files on a target
// through the execution protocol and prints each actual schedule and final
// state, as text or as one JSON object per case.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Options control a replay.
type Options struct {
	Exec executor.Options
	// Check runs a case with an oracle; nil runs it plainly (no findings).
	Check CheckFunc
	JSON  bool      // one JSON object per case (JSON Lines)
	Out   io.Writer // where schedules go
}

// CheckFunc runs one case on a target and judges it: the actual run and the
// oracle's findings.
type CheckFunc func(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options) (*executor.Result, []report.Finding, error)

// plain runs a case without an oracle.
func plain(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options) (*executor.Result, []report.Finding, error) {
	res, err := executor.Run(ctx, t, c, opt)
	return res, nil, err
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
	Findings        []report.Finding  `json:"findings"`
	Notes           []string          `json:"notes,omitempty"`
	Hang            bool              `json:"hang"`
	ElapsedMS       float64           `json:"elapsed_ms"`
}

// RunCase replays one case and packages its result.
func RunCase(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options, check CheckFunc) (*CaseResult, *executor.Result, error) {
	if check == nil {
		check = plain
	}
	start := time.Now()
	res, findings, err := check(ctx, t, c, opt)
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", c.Name, err)
	}
	info := t.Info()
	out := &CaseResult{
		Case:       c.Name,
		Target:     TargetInfo{DBMS: info.DBMS, Version: info.Version},
		Setup:      nonNil(res.Setup),
		Events:     nonNil(res.Events),
		FinalState: res.Final,
		Findings:   append([]report.Finding{}, findings...),
		Notes:      res.Notes,
		Hang:       res.Hang,
		ElapsedMS:  float64(time.Since(start).Microseconds()) / 1000,
	}
	if out.FinalState == nil {
		out.FinalState = target.State{}
	}
	levels := map[string]string{}
	for conn, l := range res.Levels {
		if l == "" {
			l = t.DefaultLevel()
		}
		levels[fmt.Sprint(conn)] = string(l)
	}
	out.Isolation = commonLevel(levels, t.DefaultLevel())
	if len(distinct(levels)) > 1 {
		out.IsolationByConn = levels
	}
	return out, res, nil
}

// Run replays every case in turn and writes the results. It returns the
// number of findings with verdict bug.
func Run(ctx context.Context, t target.Target, cases []*testcase.Case, opt Options) (int, error) {
	bugs := 0
	enc := json.NewEncoder(opt.Out)
	for i, c := range cases {
		cr, res, err := RunCase(ctx, t, c, opt.Exec, opt.Check)
		if err != nil {
			return bugs, err
		}
		bugs += report.CountBugs(cr.Findings)
		if opt.JSON {
			if err := enc.Encode(cr); err != nil {
				return bugs, err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(opt.Out)
		}
		WriteText(opt.Out, cr, res)
	}
	return bugs, nil
}

// WriteText prints one case's result for people.
func WriteText(w io.Writer, cr *CaseResult, res *executor.Result) {
	fmt.Fprintf(w, "case %s on %s %s, isolation %s", cr.Case, cr.Target.DBMS, cr.Target.Version, cr.Isolation)
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
			fmt.Fprintf(w, "%s: %s", k, cr.IsolationByConn[k])
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, " (%.1f ms)\n", cr.ElapsedMS)
	fmt.Fprintf(w, "setup: %d statement%s ok\n", len(cr.Setup), plural(len(cr.Setup)))
	fmt.Fprintln(w, "actual schedule:")
	res.WriteSchedule(w)
	if cr.Hang {
		return
	}
	fmt.Fprintln(w, "final state:")
	executor.WriteState(w, cr.FinalState)
	for _, n := range cr.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, f := range cr.Findings {
		fmt.Fprintf(w, "finding: %s %s, verdict %s (%s): %s\n", f.Oracle, f.Kind, f.Verdict, f.Rule, f.Summary)
		if f.Dir != "" {
			fmt.Fprintf(w, "  report: %s\n", f.Dir)
		}
	}
}

func commonLevel(levels map[string]string, def target.Level) string {
	d := distinct(levels)
	switch len(d) {
	case 0:
		return string(def)
	case 1:
		return d[0]
	}
	return "mixed"
}

func distinct(m map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range m {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func nonNil(evs []executor.Event) []executor.Event {
	if evs == nil {
		return []executor.Event{}
	}
	return evs
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

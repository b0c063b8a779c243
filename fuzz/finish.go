package fuzz

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/txlab/txlab/htmlreport"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// Finish ends a campaign that ran in this process: it prints sum to out
// (indented JSON, or the text summary with the findings' signatures from
// w), writes the run's HTML report over w's bundles and prints its path,
// and returns how the campaign ends (exitcode): exit status 2 for runErr
// (the summary covers what ran before it) or a report that could not be
// written, 1 for a finding with verdict bug, nil otherwise. seed goes into
// runErr's line, so that the failed campaign can be repeated.
func Finish(out io.Writer, sum *Summary, runErr error, asJSON bool, w *report.Writer, seed uint64) error {
	if asJSON {
		if err := WriteJSON(out, sum); err != nil {
			return err
		}
	} else {
		sum.WriteText(out)
		if w != nil {
			w.WriteSummary(out)
		}
	}
	page, err := htmlreport.WriteRun(w)
	if page != "" && !asJSON {
		fmt.Fprintf(out, "report: %s\n", termsafe.Line(page))
	}
	if err != nil && runErr == nil {
		// The findings are only on stdout: the run's files are
		// incomplete, which is a fault, not a warning.
		return exitcode.Fault(err)
	}
	if runErr != nil {
		// A frozen server is no property of the cases.
		if !target.IsFrozen(runErr) {
			runErr = fmt.Errorf("%w (repeat with --seed %d)", runErr, seed)
		}
		return exitcode.Fault(runErr)
	}
	return Outcome(sum)
}

// WriteJSON writes sum as `txlab fuzz --json` prints it.
func WriteJSON(out io.Writer, sum *Summary) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(sum)
}

// Outcome is exit status 1 when the campaign found a bug (exitcode).
func Outcome(sum *Summary) error { return exitcode.Findings(verdict.CountBugs(sum.Findings)) }

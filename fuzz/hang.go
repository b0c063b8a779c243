package fuzz

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// hangBundle is the bundle of case c, whose execution res hung on t after
// bound: a finding of kind hang with verdict suspect (not an oracle's
// verdict: txlab cannot say why), so that every hang is a case a person can
// replay rather than only a count. Each is Unique: two hangs of the same
// statements need not have one cause.
func hangBundle(t target.Target, c *testcase.Case, res *executor.Result, bound time.Duration) report.Bundle {
	info := t.Info()
	// Shown to a user: a mixed run says so rather than the level it is
	// judged at (Result.Level); a hang before any connection opened names
	// none.
	var level target.Level
	switch {
	case res.Mixed():
		level = "mixed"
	case len(res.ConnLevels()) > 0:
		level = res.Level()
	}
	waiting := stillWaiting(res)
	var kinds, shown []string
	for _, ev := range waiting {
		kinds = append(kinds, keyword(ev.SQL))
		shown = append(shown, fmt.Sprintf("connection %d's %s", ev.Conn, ev.SQL))
	}
	summary := fmt.Sprintf("did not finish within %v", bound)
	if len(shown) > 0 {
		summary += "; still waiting: " + strings.Join(shown, ", ")
	}
	f := verdict.Finding{Oracle: report.HangOracle, Kind: report.HangKind, Verdict: verdict.Suspect, Isolation: string(level), Summary: summary}
	var b strings.Builder
	fmt.Fprintf(&b, "HANG on %s %s at %s: %s did not finish within --hang-timeout %v.\n\n", info.DBMS, info.Version, level, c.Name, bound)
	b.WriteString("Not a verdict: txlab cannot tell why a case hangs (the DBMS never released a lock or\n" +
		"did not detect a deadlock, or txlab left a transaction open). Replay the case (txlab run\n" +
		"on this directory) and look at what waits for what.\n")
	if len(shown) > 0 {
		b.WriteString("\nStill waiting when the bound passed:\n")
		for _, ev := range waiting {
			fmt.Fprintf(&b, "  %d> %s;\n", ev.Conn, ev.SQL)
		}
	}
	b.WriteString("\nActual schedule up to the hang:\n")
	res.WriteSchedule(&b)
	return report.Bundle{Finding: f, Case: c, StmtKinds: kinds, Text: b.String(), Schedule: res, Unique: true}
}

// stillWaiting are the blocked statements that never completed: the last
// event of their connection.
func stillWaiting(res *executor.Result) []executor.Event {
	last := map[int]executor.Event{}
	for _, ev := range res.Events {
		last[ev.Conn] = ev
	}
	var out []executor.Event
	for _, conn := range slices.Sorted(maps.Keys(last)) {
		if ev := last[conn]; ev.Status == executor.StatusBlocked {
			out = append(out, ev)
		}
	}
	return out
}

// keyword is a statement's first word in upper case (INSERT, SELECT).
func keyword(sql string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
	return strings.ToUpper(strings.TrimRight(w, ";"))
}

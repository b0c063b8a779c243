// Package troc is the per-statement oracle (Troc, ICSE 2023, generalised):
// it replays a case's plain, uninstrumented execution through the model of
// what its DBMS documents (semantics/model) and reports the first statement
// whose outcome — rows returned, rows affected, waiting, a required error —
// or the final state lies outside the permitted set, naming the statement,
// the rows it must and may return and the rule.
package troc

import (
	"context"
	"fmt"
	"strings"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Name is the oracle's name on the command line.
const Name = "troc"

// Oracle judges cases statement by statement.
type Oracle struct {
	// Model is the checker; several oracles may share it.
	Model *conform.Checker
}

// Name implements oracle.CaseOracle.
func (o *Oracle) Name() string { return Name }

// JudgesPlain implements oracle.CaseOracle.
func (o *Oracle) JudgesPlain() bool { return true }

// Check implements oracle.CaseOracle.
func (o *Oracle) Check(ctx context.Context, t target.Target, c *testcase.Case, plain *executor.Result, _ executor.Options) (*oracle.Judgement, error) {
	j := &oracle.Judgement{}
	if plain == nil || plain.Hang {
		j.Undecided = "hang"
		return j, nil
	}
	conf, err := o.Model.Check(ctx, t, c, plain)
	if err != nil {
		return nil, err
	}
	dev := conf.Deviation
	if dev == nil {
		switch {
		case conf.Reason == model.ReasonTruncated:
			j.Notes = append(j.Notes, "troc: not judged: "+conf.Halted)
			j.Undecided = conf.Reason
		case conf.Halted != "":
			j.Notes = append(j.Notes, "troc: judged up to a statement it cannot decide: "+conf.Halted)
			j.Undecided = conf.Reason
		}
		return j, nil
	}
	b := bundle(c, conf.Level, t.Info(), dev, plain)
	j.Findings = append(j.Findings, b.Finding)
	j.Evidence = append(j.Evidence, b)
	return j, nil
}

// bundle turns a deviation into a finding bundle.
func bundle(c *testcase.Case, level target.Level, info target.Info, d *model.Deviation, res *executor.Result) evidence.Bundle {
	dec, _ := semantics.Judge{DBMS: info.DBMS, Level: level}.Decide(semantics.Evidence{Deviation: d})
	f := verdict.Finding{Oracle: Name, Kind: d.Kind, Verdict: dec.Verdict, Rule: dec.Rule.Name, Isolation: string(level), Summary: d.Text}
	var b strings.Builder
	fmt.Fprintf(&b, "Troc: %s (%s %s, %s)\n\n", d.Kind, info.DBMS, info.Version, level)
	fmt.Fprintf(&b, "verdict: %s\nrule: %s — %s\nsource: %s\n\n", dec.Verdict, dec.Rule.Name, dec.Rule.Text, dec.Rule.Source)
	fmt.Fprintln(&b, d.Text)
	if d.Stmt != nil {
		fmt.Fprintf(&b, "\nstatement (connection %d, step %d): %s\n", d.Stmt.Conn, d.Stmt.Step+1, d.Stmt.SQL)
		if d.Stmt.Blocked() {
			fmt.Fprintln(&b, "it waited for a lock before it completed")
		}
	}
	if d.Kind == "incorrect-result" || d.Kind == "incorrect-final-state" {
		rows := func(title string, rs []target.Row) {
			fmt.Fprintf(&b, "%s (%d):\n", title, len(rs))
			for _, r := range rs {
				fmt.Fprintf(&b, "  %s\n", executor.FormatRow(r))
			}
		}
		rows("rows it must return", d.Want)
		if len(d.May) > 0 {
			rows("rows it may return as well", d.May)
		}
		rows("rows it returned", d.Got)
	}
	fmt.Fprintln(&b, "\nthe actual schedule:")
	res.WriteSchedule(&b)
	details := map[string]any{"kind": d.Kind, "rule": d.Rule, "statement_kind": d.StmtKind, "want": d.Want, "may": d.May, "got": d.Got}
	if d.WantAffected != nil {
		details["want_affected"] = *d.WantAffected
	}
	if d.Stmt != nil {
		details["conn"], details["step"], details["sql"] = d.Stmt.Conn, d.Stmt.Step+1, d.Stmt.SQL
	}
	return evidence.Bundle{Finding: f, Case: c, StmtKinds: []string{d.StmtKind}, Text: b.String(), Details: details, Schedule: res}
}

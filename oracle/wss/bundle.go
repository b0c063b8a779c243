package wss

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Bundles turns the outcome's violations into finding bundles for
// report.Writer: the case (replayable, with the effective isolation and the
// DBMS in its headers), report.txt and report.json details.
func (o *Outcome) Bundles() []evidence.Bundle {
	var out []evidence.Bundle
	for _, v := range o.Violations {
		out = append(out, evidence.Bundle{
			Finding:   v.Finding,
			Case:      o.bundleCase(v),
			StmtKinds: o.stmtKinds(v),
			Text:      o.Text(v),
			Details:   o.details(v),
			Schedule:  o.Actual,
		})
	}
	return out
}

// bundleCase is the case as it was submitted: replaying the submitted order
// reproduces the actual schedule (the actual completion order would not
// block where the original did).
func (o *Outcome) bundleCase(v *Violation) *testcase.Case {
	c := *o.Case
	c.Steps = slices.Clone(c.Steps)
	if c.Isolation == "" {
		c.Isolation = o.Level
	}
	c.DBMS = strings.TrimSpace(o.Info.DBMS + " " + o.Info.Version)
	c.Comments = append(slices.Clone(c.Comments),
		fmt.Sprintf("wss %s: %s (%s)", v.Finding.Kind, v.Finding.Verdict, v.Finding.Rule),
		"FCRFS order: "+orderText(ids(o.Order)))
	return &c
}

// stmtKinds lists the kinds of the statements the committed transactions
// ran, plus those of the differing statements.
func (o *Outcome) stmtKinds(v *Violation) []string {
	var kinds []string
	add := func(sql string) {
		if kw := testcase.SignatureKind(sql); kw != "" && !slices.Contains(kinds, kw) {
			kinds = append(kinds, kw)
		}
	}
	for _, t := range o.Txns {
		if t.State != Committed {
			continue
		}
		for _, s := range t.Steps {
			if sql := o.Case.Steps[s].SQL; IsWrite(sql) {
				add(sql)
			}
		}
	}
	for _, d := range append(slices.Clone(v.Diff.Writes), v.Diff.Reads...) {
		add(d.SQL)
	}
	slices.Sort(kinds)
	return kinds
}

type details struct {
	DBMS        string           `json:"dbms"`
	Version     string           `json:"version"`
	Level       target.Level     `json:"level"`
	Txns        []*Txn           `json:"transactions"`
	FCRFS       []int            `json:"fcrfs"`
	Violation   *Violation       `json:"violation"`
	Rule        *verdict.Rule    `json:"rule,omitempty"`
	Schedule    []executor.Event `json:"schedule"`
	ActualFinal target.State     `json:"actual_final"`
	SerialFinal target.State     `json:"serial_final"`
	SerialSteps []testcase.Step  `json:"serial_steps"`
	Explained   []testcase.Step  `json:"explained_steps,omitempty"`
}

func (o *Outcome) details(v *Violation) details {
	d := details{
		DBMS: o.Info.DBMS, Version: o.Info.Version, Level: o.Level, Txns: o.Txns, FCRFS: ids(o.Order),
		Violation: v, Rule: o.rule(v.Finding.Rule), Schedule: o.Actual.Events,
		ActualFinal: o.Actual.Final, SerialFinal: v.Serial.Result.Final, SerialSteps: v.Serial.Case.Steps,
	}
	if v.Explained != nil {
		d.Explained = v.Explained.Case.Steps
	}
	return d
}

// rule finds the text of a rule name among the oracle's and the level's.
func (o *Outcome) rule(name string) *verdict.Rule {
	for _, r := range []verdict.Rule{RuleFCRFS, RuleNoSerialOrder} {
		if r.Name == name {
			return &r
		}
	}
	p := o.Promise
	for _, r := range []*verdict.Rule{p.AnySerialOrder, p.ReadsAnyOrder} {
		if r != nil && r.Name == name {
			return r
		}
	}
	for _, m := range p.WSS {
		if m.Rule.Name == name {
			r := m.Rule
			return &r
		}
	}
	return nil
}

// Text is report.txt: the verdict and its rule, the FCRFS order, the actual
// and the serial final states side by side, the differing rows and writes.
func (o *Outcome) Text(v *Violation) string {
	var b strings.Builder
	f := v.Finding
	fmt.Fprintf(&b, "WriteCheck (%s) on %s %s, isolation %s\n", f.Kind, o.Info.DBMS, o.Info.Version, o.Level)
	fmt.Fprintf(&b, "verdict: %s (%s)\n", f.Verdict, f.Rule)
	if r := o.rule(f.Rule); r != nil {
		fmt.Fprintf(&b, "  %s\n", r.Text)
		if r.Source != "" {
			fmt.Fprintf(&b, "  source: %s\n", r.Source)
		}
	}
	fmt.Fprintf(&b, "summary: %s\n\n", f.Summary)

	b.WriteString("transactions:\n")
	for _, t := range o.Txns {
		fmt.Fprintf(&b, "  T%d on connection %d: %s", t.ID, t.Conn, t.State)
		if t.AbortClass != "" {
			fmt.Fprintf(&b, " (%s)", t.AbortClass)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "FCRFS order (first commit/rollback first): %s\n\n", orderText(ids(o.Order)))

	b.WriteString("actual schedule:\n")
	o.Actual.WriteSchedule(&b)
	fmt.Fprintf(&b, "\nserial schedule compared (%s):\n", v.Serial.Name)
	for _, s := range v.Serial.Case.Steps {
		fmt.Fprintf(&b, "  %d> %s;\n", s.Conn, s.SQL)
	}

	b.WriteString("\nfinal states, actual | serial:\n")
	sideBySide(&b, o.Actual.Final, v.Serial.Result.Final)

	if len(v.Diff.Tables) > 0 {
		b.WriteString("\ndiffering rows:\n")
		for _, td := range v.Diff.Tables {
			for _, r := range td.OnlyActual {
				fmt.Fprintf(&b, "  %s: %s only in the actual state\n", td.Table, executor.FormatRow(r))
			}
			for _, r := range td.OnlySerial {
				fmt.Fprintf(&b, "  %s: %s only in the serial state\n", td.Table, executor.FormatRow(r))
			}
		}
	}
	for _, sec := range []struct {
		name string
		ds   []StmtDiff
	}{{"differing writes", v.Diff.Writes}, {"differing reads", v.Diff.Reads}} {
		if len(sec.ds) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", sec.name)
		for _, d := range sec.ds {
			fmt.Fprintf(&b, "  %d> %s;\n      actual: %s\n      serial: %s\n", d.Conn, d.SQL, d.Actual, d.Serial)
		}
	}

	b.WriteString("\nother serial orders: ")
	switch {
	case v.OrdersSkipped:
		fmt.Fprintf(&b, "not enumerated (more than %d)\n", v.OrdersTotal)
	case v.Reproducing != nil:
		fmt.Fprintf(&b, "%s reproduces the actual result (%d of %d tried)\n", orderText(v.Reproducing), v.OrdersTried, v.OrdersTotal)
	default:
		fmt.Fprintf(&b, "none of the %d reproduces the actual result\n", v.OrdersTotal)
	}
	switch r := v.Explained; {
	case r == nil:
	case strings.HasPrefix(r.Name, "order"):
		fmt.Fprintf(&b, "documented mechanism: the serial order %s reproduces the actual result\n", orderText(r.Order))
	default:
		// A statement-level run: show it, it is the evidence.
		fmt.Fprintf(&b, "documented mechanism, shown by the run %q (autocommit statements):\n", r.Name)
		for _, st := range r.Case.Steps {
			fmt.Fprintf(&b, "  %d> %s;\n", st.Conn, st.SQL)
		}
	}
	if v.Stmt != nil {
		// The same cause seen by the statement-level comparison.
		b.WriteString("\n--- the statement-level comparison finds the same (")
		b.WriteString(string(v.Stmt.Finding.Verdict) + ", " + v.Stmt.Finding.Rule + ") ---\n")
		b.WriteString(o.Text(v.Stmt))
	}
	return b.String()
}

// sideBySide prints two states in two columns, table by table.
func sideBySide(b *strings.Builder, a, s target.State) {
	names := a.Tables()
	for _, n := range s.Tables() {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	width := 10
	for _, n := range names {
		for _, r := range a[n] {
			width = max(width, len(executor.FormatRow(r)))
		}
	}
	for _, n := range names {
		fmt.Fprintf(b, "  %s: %d | %d rows\n", n, len(a[n]), len(s[n]))
		for i := 0; i < max(len(a[n]), len(s[n])); i++ {
			l, r := "", ""
			if i < len(a[n]) {
				l = executor.FormatRow(a[n][i])
			}
			if i < len(s[n]) {
				r = executor.FormatRow(s[n][i])
			}
			mark := " "
			if l != r {
				mark = "*"
			}
			fmt.Fprintf(b, "  %s %-*s | %s\n", mark, width, l, r)
		}
	}
}

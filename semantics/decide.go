package semantics

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/verdict"
)

// Evidence is what an oracle presents to Judge.Decide: what it saw, never a
// verdict. One of Classes, Atomic, Deviation, Serial or Prior says what was
// found; Model, Unfaithful and Outside then settle it.
type Evidence struct {
	// Classes names an anomaly (a dependency cycle, a read no level
	// permits) by its classes, most specific first: a refined name, then
	// the class of its cycle (IsoRel, MT).
	Classes []Anomaly
	// Atomic: single-statement inserts and compare-and-sets were not
	// linearizable (MT's lightweight-transaction mode).
	Atomic bool
	// Deviation is a statement (or the final state) outside the set the
	// model permits (Troc): its verdict and rule are the model's.
	Deviation *model.Deviation
	// Serial is a difference from the first-commit-first serial order
	// (WSS).
	Serial *Serial
	// Prior is a decision made earlier from evidence above, which Model
	// settles now (IsoRel asks the model only for a bug, after the fact).
	Prior *Decision

	// Model is the model's judgement of the case's plain execution; when
	// set it settles the decision: a deviating statement gives the model's
	// verdict and rule, an execution that conforms turns a bug into
	// allowed (the documented views produce it), one the model could not
	// judge to the end turns a bug into suspect.
	Model *model.Conformance
	// Unfaithful, with a conforming Model, says where the instrumented
	// run the evidence comes from differs from the plain run the model
	// judged: a bug is then suspect (IsoRel).
	Unfaithful string
	// Outside says why the case is outside what the oracle's re-runs can
	// reproduce: a bug is then suspect (WSS, RuleOutsideModel).
	Outside string
}

// Serial is WSS's evidence: how the serial re-runs relate to a difference.
type Serial struct {
	// Reads: the difference is in what reads returned.
	Reads bool
	// Reproduced: some other serial order reproduces the result.
	Reproduced bool
	// OrdersSkipped: only the first-commit-first order was tried, there
	// were too many to try them all.
	OrdersSkipped bool
	// Mechanism is the documented mechanism that explains the difference
	// (below serializable), nil when none does.
	Mechanism *Mechanism
}

// Decision is a verdict with the rule that decided it.
type Decision struct {
	Verdict verdict.Verdict
	Rule    verdict.Rule
	// Note is what the finding's summary gains: the model's word on it,
	// why it is not judged a bug ("" for none).
	Note string
	// Cause is the model's account, in the client's words, of the
	// statement that deviated from its documented view ("" when none
	// did): what a bug report says went wrong.
	Cause string
}

// Rules of WSS's verdicts (allowed verdicts carry the table's rules).
var (
	RuleFCRFS = verdict.Rule{
		Name: "wss-fcrfs",
		Text: "the result differs from the first-commit-first serial order and no documented mechanism of this DBMS and level explains it",
	}
	RuleNoSerialOrder = verdict.Rule{
		Name: "wss-no-serial-order",
		Text: "serializable: no serial order of the committed transactions reproduces the result",
	}
	// RuleOrdersNotSearched makes a difference at serializable suspect
	// when there were too many committed transactions to try every serial
	// order: an untried order may reproduce the run.
	RuleOrdersNotSearched = verdict.Rule{
		Name: "wss-serial-orders-not-searched",
		Text: "serializable: the first-commit-first serial order does not reproduce the result, and there were too many committed transactions to try every other order",
	}
	// RuleOutsideModel makes a difference suspect, never a bug, when the
	// case does what serial re-runs cannot reproduce or WSS's transaction
	// model does not cover.
	RuleOutsideModel = verdict.Rule{
		Name: "wss-case-outside-model",
		Text: "the case uses values a re-run does not reproduce (time, random numbers, server state) or statements outside WSS's transaction model (DDL and other implicit commits, savepoints, XA, session settings, AUTO_INCREMENT): a difference from the serial re-runs is not evidence of an isolation bug",
	}
)

// Decide is the one place a verdict is given: every oracle gathers its
// evidence and asks here. ok is false when the evidence is no finding at
// all (an anomaly even the textbook level permits; reads under a
// serializable level that orders readers freely, reproduced by some serial
// order).
func (j Judge) Decide(e Evidence) (d Decision, ok bool) {
	switch {
	case len(e.Classes) > 0:
		d, ok = j.anomaly(e.Classes)
	case e.Atomic:
		d, ok = Decision{Verdict: verdict.Bug, Rule: SingleStatementAtomic}, true
	case e.Deviation != nil:
		d, ok = Decision{Verdict: e.Deviation.Verdict, Rule: e.Deviation.Rule}, true
	case e.Serial != nil:
		d, ok = j.serial(*e.Serial)
	case e.Prior != nil:
		d, ok = *e.Prior, true
	}
	if !ok {
		return d, false
	}
	if e.Model != nil {
		settle(&d, e.Model, e.Unfaithful)
	}
	if e.Outside != "" && d.Verdict == verdict.Bug {
		d.Verdict, d.Rule = verdict.Suspect, RuleOutsideModel
		d.Note += "; not judged a bug: " + e.Outside
	}
	return d, true
}

// serial triages a difference from the first-commit-first serial order:
// at serializable any serial order that reproduces it makes it allowed
// (reads under a level that orders readers freely: no finding); below,
// a documented mechanism that explains it does.
func (j Judge) serial(s Serial) (Decision, bool) {
	p := j.Promise()
	switch {
	case p.Serializable && s.Reproduced:
		if s.Reads && p.ReadsAnyOrder != nil {
			return Decision{}, false
		}
		return Decision{Verdict: verdict.Allowed, Rule: *p.AnySerialOrder}, true
	case p.Serializable && s.OrdersSkipped:
		return Decision{Verdict: verdict.Suspect, Rule: RuleOrdersNotSearched}, true
	case p.Serializable:
		return Decision{Verdict: verdict.Bug, Rule: RuleNoSerialOrder}, true
	case s.Mechanism != nil:
		return Decision{Verdict: verdict.Allowed, Rule: s.Mechanism.Rule}, true
	}
	return Decision{Verdict: verdict.Bug, Rule: RuleFCRFS}, true
}

// anomaly judges one anomaly, named by its classes most specific first (a
// refined name, then the class of its cycle). ok is false when the anomaly
// is no finding at all.
func (j Judge) anomaly(classes []Anomaly) (d Decision, ok bool) {
	p := j.Promise()
	for _, c := range classes {
		a, found := p.forbidding(c)
		if !found {
			continue
		}
		d.Verdict = verdict.Bug
		switch {
		case slices.Contains(always, a):
			d.Rule = verdict.Rule{Name: "every-level-forbids-" + string(a),
				Text:   fmt.Sprintf("no isolation level permits %s", a),
				Source: textbookSource}
		case j.Model != "":
			d.Rule = verdict.Rule{Name: fmt.Sprintf("model-%s-forbids-%s", j.Model, a),
				Text:   fmt.Sprintf("the model %s (the textbook definition) forbids %s", j.Model, a),
				Source: textbookSource}
		default:
			d.Rule = verdict.Rule{Name: fmt.Sprintf("%s-%s-forbids-%s", j.DBMS, j.Level, a),
				Text:   fmt.Sprintf("%s %s%s forbids %s", j.DBMS, j.Level, j.withSettings(), a),
				Source: model.Docs[j.DBMS]}
		}
		return d, true
	}
	if j.Model != "" {
		return d, false
	}
	textbook := AdyaPromise(j.Level)
	for _, c := range classes {
		a, found := textbook.forbidding(c)
		if !found {
			continue
		}
		if j.Strict {
			d.Verdict = verdict.Bug
			d.Rule = verdict.Rule{Name: fmt.Sprintf("strict-%s-forbids-%s", j.Level, a),
				Text:   fmt.Sprintf("--strict: the textbook definition of %s forbids %s", j.Level, a),
				Source: textbookSource}
			return d, true
		}
		d.Verdict = verdict.Allowed
		d.Rule = verdict.Rule{Name: fmt.Sprintf("%s-%s-permits-%s", j.DBMS, j.Level, classes[0]),
			Text: fmt.Sprintf("%s is outside the textbook %s, but %s %s%s permits it: it forbids only %s",
				classes[0], j.Level, j.DBMS, j.Level, j.withSettings(), orNothing(p.Forbidden)),
			Source: model.Docs[j.DBMS]}
		return d, true
	}
	return d, false
}

func (j Judge) withSettings() string {
	if len(j.Settings) == 0 {
		return ""
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(j.Settings)) {
		if model.ViewsOnly(k) {
			continue // changes the statement views, not the promise
		}
		kv = append(kv, k+"="+j.Settings[k])
	}
	if len(kv) == 0 {
		return ""
	}
	return " with " + strings.Join(kv, ", ")
}

func orNothing(as []Anomaly) string {
	if len(as) == 0 {
		return "nothing"
	}
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// settle lets the model's judgement of the plain execution settle d.
func settle(d *Decision, c *model.Conformance, unfaithful string) {
	switch {
	case c.Conforms() && unfaithful != "":
		if d.Verdict == verdict.Bug {
			d.Verdict = verdict.Suspect
			d.Note += "; the model: the plain run follows the views its DBMS documents, but the instrumented run differs from it at " + unfaithful
		}
	case c.Deviation != nil:
		dev := c.Deviation
		d.Verdict, d.Rule = dev.Verdict, dev.Rule
		d.Note += "; the model: " + dev.Text
		d.Cause = dev.Text
		if dev.Stmt != nil {
			d.Note += fmt.Sprintf(" (step %d: %s)", dev.Stmt.Step+1, dev.Stmt.SQL)
		}
	case c.Conforms():
		if d.Verdict == verdict.Bug {
			d.Verdict, d.Rule = verdict.Allowed, c.Rules.DocumentedViews()
		}
		d.Note += "; the model: every statement followed the view its DBMS documents"
	default:
		if d.Verdict == verdict.Bug {
			d.Verdict = verdict.Suspect
		}
		d.Note += "; the model cannot decide: " + c.Halted
	}
}

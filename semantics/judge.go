package semantics

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// Model is what --model names for every oracle: the textbook definition of
// an isolation level (Adya's, as Elle checks it), or strict serializability
// (serializable plus real-time order). Judging against a model replaces what
// the DBMS documents: everything the model forbids is a bug, nothing else is
// a finding.
type Model string

// StrictSerializable is the model beyond the isolation levels.
const StrictSerializable Model = "strict-serializable"

// ParseModel accepts an isolation level's name (as target.ParseLevel does)
// or strict-serializable (sser); "" is no model.
func ParseModel(s string) (Model, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return "", nil
	case "strict-serializable", "sser":
		return StrictSerializable, nil
	}
	l, err := target.ParseLevel(s)
	if err != nil {
		return "", fmt.Errorf("unknown model %q (want an isolation level or strict-serializable)", s)
	}
	return Model(l), nil
}

// Level is the isolation level whose textbook definition the model is.
func (m Model) Level() target.Level {
	if m == StrictSerializable {
		return target.Serializable
	}
	return target.Level(m)
}

// Promise is the model's promise.
func (m Model) Promise() Promise {
	p := AdyaPromise(m.Level())
	p.DBMS = "model"
	p.RealTime = m == StrictSerializable
	return p
}

// textbookSource is where the textbook definitions come from.
const textbookSource = "Adya, Weak Consistency (1999): PL-1, PL-2, PL-2.99, PL-SI, PL-3; Elle's anomaly classes"

// SingleStatementAtomic is the rule of MT's lightweight-transaction mode: a
// single-statement insert or compare-and-set is atomic on every DBMS, so the
// operations must be linearizable.
var SingleStatementAtomic = verdict.Rule{
	Name:   "single-statement-cas-linearizable",
	Text:   "a single-statement insert or compare-and-set is atomic at every level: the operations must be linearizable",
	Source: "SQL standard (statement atomicity); MTC paper §5",
}

// Judge decides the verdict on an anomaly for one run: the DBMS, the level
// its transactions ran at, the server settings that change what it
// promises, and the user's --model and --strict. Every oracle asks it for
// its verdicts (Decide); on an anomaly the policy is:
//
//   - forbidden by the DBMS's documented promise (or by --model, which
//     replaces it) → bug;
//   - forbidden only by the textbook definition of the level's name → bug
//     under --strict, otherwise allowed (documented behaviour);
//   - permitted even by the textbook definition → not a finding.
type Judge struct {
	DBMS     string
	Level    target.Level
	Settings map[string]string
	Model    Model
	Strict   bool
}

// Promise is what the judge holds the run to: the model's promise when
// --model is given, otherwise what the DBMS documents for the level.
func (j Judge) Promise() Promise {
	if j.Model != "" {
		return j.Model.Promise()
	}
	return Lookup(j.DBMS, j.Level, j.Settings)
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

package semantics

import (
	"fmt"
	"strings"

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

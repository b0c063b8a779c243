// Package mt checks mini-transaction (MT) histories for serializability,
// snapshot isolation, strict serializability and, for lightweight-transaction
// histories, linearizability, following "Mini-Transactions" (MTC), §IV.
//
// A mini-transaction has one or two reads and at most two writes, each write
// preceded by a read of the same key, and every value written to a key is
// unique. Then the write-read relation is fixed by the values, the
// write-write relation follows from it (the writer read the version it
// overwrote), and the dependency graph is unique up to the DIVERGENCE pattern
// (two transactions overwrite the same version). That makes SER and SI
// checkable in O(n) (Algorithm 1 with the §IV-C optimization: no transitive
// closure of ww) and SSER in O(n log n) here: instead of O(n²) real-time
// edges, every transaction points to a node on a chain of end times sorted
// ascending, and each time node points to the transactions that started after
// it. LWT histories are checked per key in O(n) (Algorithm 2).
//
// Violations are named with the paper's Table I anomalies in kebab-case
// (thin-air-read, aborted-read, future-read, not-my-last-write,
// not-my-own-write, intermediate-read, non-repeatable-reads,
// session-guarantee-violation, non-monotonic-read, fractured-read,
// causality-violation, long-fork, lost-update, write-skew). Two cases have no
// Table I name: a cycle of ww/wr edges only is circular-information-flow
// (Adya G1c), and a strict-serializability cycle that needs a real-time edge
// is real-time-violation. Each anomaly also carries its Adya/Elle class.
//
// Table I does not say how non-monotonic-read and fractured-read differ in
// their cycle (both are T →wr S →rw T); this package calls it
// non-monotonic-read when S reads T's new value before the stale one (its
// reads go back in time) and fractured-read otherwise.
package mt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
)

// Model is the isolation model a history is checked against.
type Model string

// Models.
const (
	Serializable       Model = "serializable"
	Snapshot           Model = "snapshot"
	StrictSerializable Model = "strict-serializable"
	Linearizable       Model = "linearizable"
)

// ParseModel accepts the model names and the short forms SER, SI, SSER, LIN.
func ParseModel(s string) (Model, error) {
	switch strings.ToLower(s) {
	case "serializable", "ser":
		return Serializable, nil
	case "snapshot", "snapshot-isolation", "si":
		return Snapshot, nil
	case "strict-serializable", "sser":
		return StrictSerializable, nil
	case "linearizable", "lin":
		return Linearizable, nil
	}
	return "", fmt.Errorf("unknown model %q (want serializable, snapshot, strict-serializable or linearizable)", s)
}

// TxnRef is a transaction involved in an anomaly, with its operations.
type TxnRef struct {
	ID      int64    `json:"id"`
	Session int      `json:"session"`
	Status  string   `json:"status"`
	Ops     []string `json:"ops"`
}

// Step is one edge of a counterexample cycle.
type Step struct {
	From int64  `json:"from"`
	To   int64  `json:"to"`
	Kind string `json:"kind"` // ww, wr, rw, so, rt
	Key  int64  `json:"key"`
}

// Anomaly is one counterexample.
type Anomaly struct {
	Name        semantics.Anomaly `json:"name"`            // Table I name, kebab-case
	Class       semantics.Anomaly `json:"class,omitempty"` // Adya/Elle class (G1a, G-single, …)
	Txns        []TxnRef          `json:"transactions"`
	Cycle       []Step            `json:"cycle,omitempty"`
	Explanation string            `json:"explanation"`
}

// Result is the outcome of a check.
type Result struct {
	Model     Model     `json:"model"`
	Valid     bool      `json:"valid"`
	Txns      int       `json:"transactions"`
	Anomalies []Anomaly `json:"anomalies,omitempty"`
}

// InputError reports a history that breaks the MT assumptions (not an
// isolation violation: the history cannot be judged).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return "bad history: " + e.Msg }

func badInput(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

// maxAnomalies bounds the counterexamples reported: one suffices to file a
// bug, and a broken history can have millions.
const maxAnomalies = 20

// Check verifies h against model.
func Check(h *history.History, model Model) (*Result, error) { return check(compact(h), model) }

// check is Check on the checks' own copy of a history.
func check(h *chist, model Model) (*Result, error) {
	if model == Linearizable {
		return checkLWTParallel(h)
	}
	switch model {
	case Serializable, Snapshot, StrictSerializable:
	default:
		return nil, fmt.Errorf("unknown model %q", model)
	}
	ix, err := index(h)
	if err != nil {
		return nil, err
	}
	res := &Result{Model: model, Txns: len(h.Txns)}
	if ix.readChecks(res); len(res.Anomalies) > 0 {
		return res, nil
	}
	if model == Snapshot {
		if ix.divergence(res); len(res.Anomalies) > 0 {
			return res, nil
		}
	}
	// Most histories have no cycle: show that from the history's order
	// where it can be, else test for cycles on the unlabeled graph, and
	// search the witnesses in its cyclic components.
	if ix.acyclic(model) {
		res.Valid = true
		return res, nil
	}
	a := ix.cycleTest(model)
	if sccs, comp := a.CyclicSCCs(); len(sccs) > 0 {
		ix.witnesses(res, model, a, sccs, comp)
	}
	res.Valid = len(res.Anomalies) == 0
	return res, nil
}

func (ix *indexed) ref(t int32) TxnRef {
	tx := &ix.h.Txns[t]
	r := TxnRef{ID: tx.ID, Session: tx.Session, Status: tx.Status.String(), Ops: make([]string, len(tx.Ops))}
	if tx.Init {
		r.Status = "init"
		if len(tx.Ops) > 8 {
			r.Ops = []string{fmt.Sprintf("%d initial writes", len(tx.Ops))}
			return r
		}
	}
	for i, o := range tx.Ops {
		r.Ops[i] = o.String()
	}
	return r
}

func (ix *indexed) refs(ts ...int32) []TxnRef {
	var out []TxnRef
	for i, t := range ts {
		if slices.Contains(ts[:i], t) {
			continue
		}
		out = append(out, ix.ref(t))
	}
	return out
}

func (ix *indexed) name(t int32) string {
	if ix.h.Txns[t].Init {
		return "the initial transaction"
	}
	return fmt.Sprintf("T%d", ix.h.Txns[t].ID)
}

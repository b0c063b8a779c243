// Package semantics is txlab's one statement of what each DBMS family
// promises at each isolation level (and, where it matters, under which server
// setting), and its one judge. The promise (the documented mechanisms that
// explain a difference from a serial execution and the anomaly classes each
// level forbids) is read from the one table of semantics/rules/table.go,
// whose rows also hold the statement views the model replays; Judge.Decide
// turns (DBMS, level, settings, --model, --strict) and an oracle's evidence
// into a verdict and the rule behind it (a stable slug, one line of text and
// a source); anomaly names and their one hierarchy are the typed constants
// of anomaly.go. Oracles ask this package instead of switching on the DBMS
// or deciding verdicts themselves, so that a new DBMS or a newly documented
// behaviour is one more row of data in the table, not a code change in every
// oracle.
package semantics

import (
	"context"
	"fmt"
	"strings"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// MechanismKind says how an oracle can test whether a mechanism explains
// what it saw (the kinds and the mechanisms are rows of the one table, in
// semantics/model).
type MechanismKind = model.MechanismKind

// Mechanism kinds.
const (
	SnapshotPredicate  = model.SnapshotPredicate
	SemiConsistentRead = model.SemiConsistentRead
)

// Mechanism is one documented way a DBMS may legitimately differ from the
// first-commit-first serial order.
type Mechanism = model.Mechanism

// Promise is what one DBMS promises at one level under the given settings.
type Promise struct {
	DBMS  string       `json:"dbms"`
	Level target.Level `json:"level"`
	// Serializable is true when the level promises equivalence to some serial
	// order (not necessarily the commit order).
	Serializable bool `json:"serializable"`
	// AnySerialOrder is the rule that makes a result reproduced by some other
	// serial order allowed (only set when Serializable).
	AnySerialOrder *verdict.Rule `json:"any_serial_order,omitempty"`
	// ReadsAnyOrder is set when a serializable level may order a reader
	// before a writer that committed first (PostgreSQL SSI, WriteCheck
	// footnote 4): reads must match some serial order, not the commit order.
	ReadsAnyOrder *verdict.Rule `json:"reads_any_order,omitempty"`
	// WSS lists the documented mechanisms that explain a write-specific
	// serializability difference at this level.
	WSS []Mechanism `json:"wss,omitempty"`
	// Forbidden lists the anomaly classes the level forbids (for IsoRel).
	Forbidden []Anomaly `json:"forbidden,omitempty"`
	// RealTime is set when the promise includes real-time order (strict
	// serializability): only then are cycles through real-time edges
	// forbidden.
	RealTime bool `json:"real_time,omitempty"`
}

// Lookup returns what dbms (a target.Info().DBMS value) promises at level
// under the given server settings (name → value; nil for defaults). An empty
// level means the DBMS's default and should be resolved by the caller first.
func Lookup(dbms string, level target.Level, settings map[string]string) Promise {
	t := model.LookupPromise(dbms, level, settings)
	p := Promise{DBMS: dbms, Level: level, Serializable: t.Serializable,
		AnySerialOrder: t.AnySerialOrder, ReadsAnyOrder: t.ReadsAnyOrder, WSS: t.WSS}
	for _, a := range t.Forbidden {
		p.Forbidden = append(p.Forbidden, Anomaly(a))
	}
	return p
}

// SettingNames lists the server settings some row of the table depends on.
func SettingNames() []string { return model.SettingNames() }

// ServerSettings reads the settings the table depends on from t (when its
// adapter can report them) and lays the given overrides (from --set, as
// "name=value") over them. Values compare case-insensitively in Lookup.
func ServerSettings(ctx context.Context, t target.Target, overrides []string) (map[string]string, error) {
	out := map[string]string{}
	if r, ok := target.As[target.SettingsReader](t); ok {
		got, err := r.Settings(ctx, SettingNames())
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			out[k] = v
		}
	}
	for _, kv := range overrides {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("setting %q: want name=value", kv)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

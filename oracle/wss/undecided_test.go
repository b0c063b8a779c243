package wss

import (
	"testing"

	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/verdict"
)

// TestUndecided: WSS names why it left a case undecided — runs that did
// not finish, or a difference left suspect and what kept it so — and
// names nothing for a case whose differences it settled.
func TestUndecided(t *testing.T) {
	suspect := func(rule string) *Violation {
		return &Violation{Finding: verdict.Finding{Verdict: verdict.Suspect, Rule: rule}}
	}
	halted := &model.Conformance{Halted: "the rows … depend on rows the model leaves open", Reason: "open rows: UPDATE"}
	for _, tc := range []struct {
		name string
		out  Outcome
		want string
	}{
		{"settled", Outcome{Violations: []*Violation{{Finding: verdict.Finding{Verdict: verdict.Bug, Rule: "wss-fcrfs"}}}}, ""},
		{"serial run hung", Outcome{Skipped: "a serial run hung (tx-serial)"}, "a serial run hung"},
		{"model halted", Outcome{Violations: []*Violation{suspect(semantics.RuleFCRFS.Name)}, Model: halted}, "the model cannot decide: open rows: UPDATE"},
		{"orders not searched", Outcome{Violations: []*Violation{suspect(semantics.RuleOrdersNotSearched.Name)}}, "serial orders not searched"},
		{"outside the model", Outcome{Violations: []*Violation{suspect(semantics.RuleOutsideModel.Name)}, Model: halted}, "outside WSS's transaction model"},
	} {
		if got := undecided(&tc.out); got != tc.want {
			t.Errorf("%s: undecided %q, want %q", tc.name, got, tc.want)
		}
	}
}

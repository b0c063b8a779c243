// Package evidence is what a judge returns for a finding: data, no
// rendering and no files. The oracles build it; package report renders it
// (report.txt, report.json, the HTML report's schedule) and writes the
// bundles. It sits below both so that the oracles do not import report.
package evidence

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Bundle is everything an oracle has to say about one finding. The report
// package's writer turns it into a directory: case.txn, report.txt, report.json and any
// extra files (IsoRel adds graph.dot).
type Bundle struct {
	Finding verdict.Finding
	// Case is the replayable case (initial state and the involved
	// transactions); it is written as case.txn.
	Case *testcase.Case
	// StmtKinds are the kinds of the statements involved (INSERT, UPDATE,
	// ...); with the finding's oracle, kind, isolation and verdict they make
	// its signature.
	StmtKinds []string
	// OneCause says the finding's kind and rule name its cause (an IsoRel
	// anomaly): its statement kinds stay out of its signature.
	OneCause bool
	// Text is the plain-English report.txt.
	Text string
	// Details is oracle-specific data marshalled into report.json.
	Details any
	// Extra holds further files by name.
	Extra map[string][]byte
	// Schedule is the execution the finding is about (the plain run of
	// the case as submitted), written as schedule.json for the HTML
	// report's timeline; nil = none.
	Schedule *executor.Result
	// Unique says the finding is a cause of its own whatever came before
	// it: its bundle is written even when another finding had the same
	// signature (a hang, whose cause txlab cannot name: every one is a
	// case a person replays).
	Unique bool
}

// Signature identifies findings that are most likely the same problem. It
// holds the rule that decided the verdict, so that a finding a different
// rule decides (a real bug beside a documented behaviour of the same shape)
// never hides behind another's bundle.
func (b *Bundle) Signature() string {
	kinds := slices.Clone(b.StmtKinds)
	sort.Strings(kinds)
	kinds = slices.Compact(kinds)
	f := b.Finding
	if b.OneCause || NamedAfterIssue(f.Rule) {
		// The kind and the rule name the cause: statement kinds would only
		// split one cause into many signatures (and bundles).
		kinds = nil
	}
	sig := []string{f.Oracle, f.Kind}
	if len(kinds) > 0 {
		sig = append(sig, strings.Join(kinds, "+"))
	}
	sig = append(sig, f.Isolation, string(f.Verdict))
	if f.Rule != "" {
		sig = append(sig, "["+f.Rule+"]")
	}
	return strings.Join(sig, " ")
}

// issueRule matches a rule named after a tracker's issue: mdev-30835-…,
// mysql-104833-…, tidb-57170-….
var issueRule = regexp.MustCompile(`^[a-z]+-[0-9]+-`)

// NamedAfterIssue reports whether rule is named after a tracker's issue (a
// known defect): such a finding's cause is its rule.
func NamedAfterIssue(rule string) bool { return issueRule.MatchString(rule) }

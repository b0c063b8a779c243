// Package verdict is txlab's vocabulary of judgement, on the ground floor so
// that the semantics table, the oracles and the report all speak it without
// importing each other: a Finding, the Verdict it carries and the Rule it
// names.
package verdict

// Verdict says whether a finding breaks the DBMS's documented guarantee.
type Verdict string

// Verdicts.
const (
	// Bug: forbidden by the DBMS's documented guarantee for the level.
	Bug Verdict = "bug"
	// Allowed: violates only the textbook (Adya) definition of the level's
	// name; documented behaviour of this DBMS.
	Allowed Verdict = "allowed"
	// Suspect: outside what the semantics model can decide; a person looks.
	Suspect Verdict = "suspect"
	// Known is the verdict of a finding a suppression file matched: a
	// problem already reported, counted and printed but given no bundle.
	Known Verdict = "known"
)

// Rule is one documented (or textbook) rule a verdict rests on.
type Rule struct {
	// Name is a slug, e.g. postgres-repeatable-read-forbids-G-single.
	Name string `json:"name"`
	// Text is one line for the reader.
	Text string `json:"text"`
	// Source says where the rule is documented.
	Source string `json:"source,omitempty"`
}

// Finding is one oracle finding.
type Finding struct {
	Oracle       string  `json:"oracle"`
	Kind         string  `json:"kind"`
	Verdict      Verdict `json:"verdict"`
	Rule         string  `json:"rule"`
	Isolation    string  `json:"isolation"`
	Transactions []int   `json:"transactions,omitempty"`
	Dir          string  `json:"dir,omitempty"`
	Summary      string  `json:"summary,omitempty"`
	// Signature is the finding's signature with its verdict before any
	// suppression (the bundle's signature): what a suppression file matches.
	Signature string `json:"signature,omitempty"`
	// KnownAs is the suppression entry that made the verdict known.
	KnownAs string `json:"known_as,omitempty"`
}

// Count returns how many findings have verdict v.
func Count(fs []Finding, v Verdict) int {
	n := 0
	for _, f := range fs {
		if f.Verdict == v {
			n++
		}
	}
	return n
}

// CountBugs returns how many findings have verdict bug.
func CountBugs(fs []Finding) int { return Count(fs, Bug) }

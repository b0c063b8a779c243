// Package report holds what an oracle found and how it is shown: findings
// with their verdict (bug, allowed, known) and the finding bundles written
// under --out, one per new signature, with the repeats counted, and the
// suppression files that turn known problems' findings into verdict known.
package report

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
)

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
	// suppression (Bundle.Signature): what a suppression file matches.
	Signature string `json:"signature,omitempty"`
	// KnownAs is the suppression entry that made the verdict known.
	KnownAs string `json:"known_as,omitempty"`
}

// CountVerdict returns how many findings have verdict v.
func CountVerdict(fs []Finding, v Verdict) int {
	n := 0
	for _, f := range fs {
		if f.Verdict == v {
			n++
		}
	}
	return n
}

// CountBugs returns how many findings have verdict bug.
func CountBugs(fs []Finding) int { return CountVerdict(fs, Bug) }

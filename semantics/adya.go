package semantics

import (
	"slices"

	"github.com/txlab/txlab/target"
)

// adya is what the textbook definitions (Adya's PL levels, as Elle checks
// them) of each level's name forbid, whatever a DBMS documents. An anomaly
// outside this list is no finding at all at that level; one inside it but
// not in the DBMS's own Promise.Forbidden is "allowed".
var adya = map[target.Level][]Anomaly{
	target.ReadUncommitted: {"G0"},
	target.ReadCommitted:   {"G0", "G1a", "G1b", "G1c"},
	// PL-2.99: item anti-dependency cycles are forbidden, predicate ones not.
	target.RepeatableRead: {"G0", "G1a", "G1b", "G1c", "G2-item"},
	// Adya PL-SI forbids G-SI; Elle checks it as G-single and G-nonadjacent.
	target.Snapshot:     {"G0", "G1a", "G1b", "G1c", "G-single", "G-nonadjacent", "lost-update"},
	target.Serializable: {"G0", "G1a", "G1b", "G1c", "G2"},
}

// Adya returns the anomaly classes the textbook definition of level's name
// forbids.
func Adya(level target.Level) []Anomaly {
	return slices.Clone(adya[level])
}

// AdyaPromise is the promise of the textbook definition of level's name; an
// oracle checks a history against it to decide what is a finding at all, and
// against the DBMS's Lookup promise to decide bug or allowed.
func AdyaPromise(level target.Level) Promise {
	return Promise{DBMS: "adya", Level: level, Serializable: level == target.Serializable, Forbidden: Adya(level)}
}

// broader lists, for each class, the classes that contain it: a level that
// forbids G2 forbids every anti-dependency cycle, one that forbids G1 every
// G1 part.
var broader = map[Anomaly][]Anomaly{
	"G1a":           {"G1"},
	"G1b":           {"G1"},
	"G1c":           {"G1"},
	"G2-item":       {"G2"},
	"G-single":      {"G2", "G2-item"},
	"G-nonadjacent": {"G2", "G2-item"},
	"lost-update":   {"G-single", "G2-item", "G2"},
}

// Forbids reports whether the promise forbids an anomaly of class c, listed
// directly or through a broader class it lists.
func (p Promise) Forbids(c Anomaly) bool {
	if slices.Contains(p.Forbidden, c) {
		return true
	}
	for _, b := range broader[c] {
		if slices.Contains(p.Forbidden, b) {
			return true
		}
	}
	return false
}

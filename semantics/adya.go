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
	target.ReadUncommitted: {G0},
	target.ReadCommitted:   {G0, G1a, G1b, G1c},
	// PL-2.99: item anti-dependency cycles are forbidden, predicate ones not.
	target.RepeatableRead: {G0, G1a, G1b, G1c, G2Item},
	// Adya PL-SI forbids G-SI; Elle checks it as G-single and G-nonadjacent,
	// item or predicate.
	target.Snapshot:     {G0, G1a, G1b, G1c, GSingle, GNonadjacent, GSinglePredicate, GNonadjacentPredicate},
	target.Serializable: {G0, G1a, G1b, G1c, G2},
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

// Forbids reports whether the promise forbids an anomaly of class c, listed
// directly or through a broader class it lists. A cycle that needs a
// real-time edge is forbidden only by a promise of real-time order.
func (p Promise) Forbids(c Anomaly) bool {
	_, ok := p.forbidding(c)
	return ok
}

// forbidding returns the entry of p.Forbidden that covers c, the most
// specific first.
func (p Promise) forbidding(c Anomaly) (Anomaly, bool) {
	if slices.Contains(always, c) {
		return c, true
	}
	if c.RealTime() && !p.RealTime {
		return "", false
	}
	for a := c; a != ""; a = a.Parent() {
		if slices.Contains(p.Forbidden, a) {
			return a, true
		}
	}
	return "", false
}

package semantics

import "strings"

// Anomaly names a class of anomaly: Adya's and Elle's classes, the refined
// names IsoRel and MT give some cycles, and the read anomalies no level
// permits. Every oracle names what it found with these constants, so that
// one hierarchy decides what a level's forbidden list covers.
type Anomaly string

// Adya/Elle classes. Elle's "-process" and "-realtime" suffixes (a cycle
// that needs a session-order or real-time edge) are not listed: Parent
// strips them.
const (
	G0           Anomaly = "G0"            // write cycle
	G1           Anomaly = "G1"            // G1a, G1b or G1c
	G1a          Anomaly = "G1a"           // aborted read
	G1b          Anomaly = "G1b"           // intermediate read
	G1c          Anomaly = "G1c"           // circular information flow
	G2           Anomaly = "G2"            // any anti-dependency cycle
	G2Item       Anomaly = "G2-item"       // an item anti-dependency cycle
	GSingle      Anomaly = "G-single"      // exactly one anti-dependency
	GNonadjacent Anomaly = "G-nonadjacent" // several, no two adjacent
)

// Predicate anti-dependency cycles (Adya's thesis §4.2: a transaction
// overwrites a predicate read when it installs a version that changes the
// read's matches). Adya's G2-item is a cycle with an item anti-dependency;
// a cycle whose anti-dependencies are all predicate ones (a phantom) is G2
// but not G2-item, so PL-2.99 (repeatable read) permits it while PL-SI
// (G-SIb: one anti-dependency, item or predicate) and PL-3 forbid it.
const (
	G2Predicate           Anomaly = "G2-predicate"            // several predicate anti-dependencies
	GSinglePredicate      Anomaly = "G-single-predicate"      // exactly one, a predicate one
	GNonadjacentPredicate Anomaly = "G-nonadjacent-predicate" // several, all predicate, no two adjacent
)

// Refined names of cycles (IsoRel §2.4, MTC).
const (
	LostUpdate    Anomaly = "lost-update"     // one rw and ww on one row
	ReadWriteSkew Anomaly = "read-write-skew" // one rw and ww on several rows
	WriteSkew     Anomaly = "write-skew"      // rw edges only
)

// MT's names (MTC paper, Table I); a cycle's own class is passed along
// with its name, so those without a fixed parent still find their place.
const (
	AbortedRead               Anomaly = "aborted-read"
	IntermediateRead          Anomaly = "intermediate-read"
	NonRepeatableReads        Anomaly = "non-repeatable-reads"
	RealTimeViolation         Anomaly = "real-time-violation"
	SessionGuaranteeViolation Anomaly = "session-guarantee-violation"
	CircularInformationFlow   Anomaly = "circular-information-flow"
	NonMonotonicRead          Anomaly = "non-monotonic-read"
	FracturedRead             Anomaly = "fractured-read"
	CausalityViolation        Anomaly = "causality-violation"
	LongFork                  Anomaly = "long-fork"
)

// Anomalies no isolation level permits: a read of a value nobody wrote, a
// transaction that does not see its own writes, a row whose versions do not
// form one order.
const (
	ThinAirRead    Anomaly = "thin-air-read"
	FutureRead     Anomaly = "future-read"
	NotMyOwnWrite  Anomaly = "not-my-own-write"
	NotMyLastWrite Anomaly = "not-my-last-write"
	VersionFork    Anomaly = "version-fork"
)

// parent is the one hierarchy: each class's nearest broader class. A level
// that forbids a class forbids everything under it. A G-single or
// G-nonadjacent cycle with an item anti-dependency lies under G2-item;
// one whose anti-dependencies are all predicate ones has its own
// -predicate name under G2 (see G2Predicate). A refined name's parent is the class its cycle
// usually has; an oracle that knows the cycle's own class passes both (see
// Judge.Decide).
var parent = map[Anomaly]Anomaly{
	G1a:                     G1,
	G1b:                     G1,
	G1c:                     G1,
	GSingle:                 G2Item,
	GNonadjacent:            G2Item,
	G2Item:                  G2,
	G2Predicate:             G2,
	GSinglePredicate:        G2Predicate,
	GNonadjacentPredicate:   G2Predicate,
	LostUpdate:              GSingle,
	ReadWriteSkew:           GSingle,
	WriteSkew:               G2Item,
	AbortedRead:             G1a,
	IntermediateRead:        G1b,
	NonRepeatableReads:      G2Item, // Adya's P2, a fuzzy read
	CircularInformationFlow: G1c,
	NonMonotonicRead:        GSingle,
	FracturedRead:           GSingle,
	CausalityViolation:      GSingle,
	LongFork:                GNonadjacent,
}

// always lists the anomalies every level forbids.
var always = []Anomaly{ThinAirRead, FutureRead, NotMyOwnWrite, NotMyLastWrite, VersionFork}

// suffixes are Elle's markers of a cycle that needs a session-order or a
// real-time edge.
const (
	processSuffix  = "-process"
	realtimeSuffix = "-realtime"
)

// Parent returns a's nearest broader class ("" at the top). A suffixed
// class's parent is its base class.
func (a Anomaly) Parent() Anomaly {
	if b, ok := a.base(); ok {
		return b
	}
	return parent[a]
}

// base strips Elle's suffix.
func (a Anomaly) base() (Anomaly, bool) {
	for _, s := range []string{processSuffix, realtimeSuffix} {
		if b, ok := strings.CutSuffix(string(a), s); ok {
			return Anomaly(b), true
		}
	}
	return a, false
}

// RealTime reports whether a is a cycle that needs a real-time edge: only
// a promise of real-time order (strict serializability) forbids it.
func (a Anomaly) RealTime() bool { return strings.HasSuffix(string(a), realtimeSuffix) }

// Within reports whether a is b or lies under b.
func (a Anomaly) Within(b Anomaly) bool {
	for c := a; c != ""; c = c.Parent() {
		if c == b {
			return true
		}
	}
	return false
}

package executor

import (
	"slices"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// The one policy for isolation levels. A connection of a case runs at the
// run's override (Options.Isolation), else at the case's level for it
// (isolation.N, else isolation); "" there means the session is not told a
// level and runs at the DBMS default. The concrete level puts the DBMS
// default in place of "", so that oracles compare real levels and never
// resolve the default again.

// ConnLevel is the level connection conn of c is asked to run at under
// opt; "" leaves the DBMS default.
func ConnLevel(c *testcase.Case, conn int, opt Options) target.Level {
	if opt.Isolation != "" {
		return opt.Isolation
	}
	return c.LevelOf(conn)
}

// CaseLevel is the level c asks of its connections that name none of
// their own, under opt; "" leaves the DBMS default.
func CaseLevel(c *testcase.Case, opt Options) target.Level {
	if opt.Isolation != "" {
		return opt.Isolation
	}
	return c.Isolation
}

// Concrete is the level l stands for: l itself, or def, the DBMS default,
// when l is "".
func Concrete(l, def target.Level) target.Level {
	if l == "" {
		return def
	}
	return l
}

// ConcreteOn is the level l stands for on t: l itself, or t's default
// when l is "". Code outside the executor and the adapters resolves the
// default only through it (or a Result's levels), never by
// Target.DefaultLevel.
func ConcreteOn(t target.Target, l target.Level) target.Level {
	return Concrete(l, t.DefaultLevel())
}

// CaseLevelOn is CaseLevel made concrete on t: the level c's connections
// that name none of their own run at under opt.
func CaseLevelOn(t target.Target, c *testcase.Case, opt Options) target.Level {
	return ConcreteOn(t, CaseLevel(c, opt))
}

// ConnLevels is the concrete level of every connection that ran: the
// executor's Concrete, or, for a result built without one (a test's),
// Levels with Default in place of "".
func (r *Result) ConnLevels() map[int]target.Level {
	if r.Concrete != nil {
		return r.Concrete
	}
	out := make(map[int]target.Level, len(r.Levels))
	for conn, l := range r.Levels {
		out[conn] = Concrete(l, r.Default)
	}
	return out
}

// Mixed reports whether the connections ran at different levels.
func (r *Result) Mixed() bool {
	var first target.Level
	for _, l := range r.ConnLevels() {
		if first != "" && l != first {
			return true
		}
		first = l
	}
	return false
}

// Level is the one level the run is judged at. The policy for mixed
// levels is the weakest level any connection ran at (target.AllLevels
// order): its promises are the ones every transaction can rely on. A run
// without connections (a case with no steps, a setup that failed or hung)
// is at Default, the level any connection would have run at.
//
// An oracle that cannot judge a mixed run at one level checks Mixed first
// (the model refuses it); one that shows the level to a user may name it
// "mixed" instead (replay, hang bundles).
func (r *Result) Level() target.Level {
	best := -1
	for _, l := range r.ConnLevels() {
		if i := slices.Index(target.AllLevels, l); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return r.Default
	}
	return target.AllLevels[best]
}

package executor

import (
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

// ConcreteLevels is the concrete level of every connection that ran: the
// executor's Concrete, or, for a result built without one, Levels with def
// (the DBMS default) in place of "".
func (r *Result) ConcreteLevels(def target.Level) map[int]target.Level {
	if r.Concrete != nil {
		return r.Concrete
	}
	out := make(map[int]target.Level, len(r.Levels))
	for conn, l := range r.Levels {
		out[conn] = Concrete(l, def)
	}
	return out
}

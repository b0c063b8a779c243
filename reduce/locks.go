package reduce

import (
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// weakerLock is the next weaker locking clause of dialect d, each a step
// down Table 13.3 of PostgreSQL's documentation (FOR UPDATE, FOR NO KEY
// UPDATE, FOR SHARE, FOR KEY SHARE, none: each conflicts with a subset of
// what the one before conflicts with); the MySQL family has FOR UPDATE
// and FOR SHARE only.
func weakerLock(d sqlast.Dialect, m sqlast.LockMode) sqlast.LockMode {
	switch m {
	case sqlast.LockUpdate:
		if d == sqlast.Postgres {
			return sqlast.LockNoKeyUpdate
		}
		return sqlast.LockShare
	case sqlast.LockNoKeyUpdate:
		return sqlast.LockShare
	case sqlast.LockShare:
		if d == sqlast.Postgres {
			return sqlast.LockKeyShare
		}
	}
	return sqlast.LockNone
}

// lockWeakenings lists, in source order, the weaker locks statement s
// can take: a locking clause one strength down, a LOCK TABLE one mode
// down (13.3.1's list, weakest first) or without NOWAIT.
func lockWeakenings(d sqlast.Dialect, s sqlast.Stmt) []func() {
	switch s := s.(type) {
	case *sqlast.SelectStmt:
		if s.Lock != sqlast.LockNone {
			return []func(){func() {
				if s.Lock = weakerLock(d, s.Lock); s.Lock == sqlast.LockNone {
					s.Wait, s.ShareMode = sqlast.WaitDefault, nil
				}
			}}
		}
	case *sqlast.LockTable:
		var out []func()
		if s.Mode > sqlast.AccessShare {
			out = append(out, func() { s.Mode-- })
		}
		if s.Nowait {
			out = append(out, func() { s.Nowait = false })
		}
		return out
	}
	return nil
}

// weakenLock applies the i-th lock weakening over the whole case.
func weakenLock(r *reducer, c *testcase.Case, i int) *testcase.Case {
	return inPlace(func(s sqlast.Stmt) []func() { return lockWeakenings(r.opt.Dialect, s) })(r, c, i)
}

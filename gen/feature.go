package gen

import "github.com/txlab/txlab/sqlast"

// The features beyond the base subset (package features' names: savepoint,
// foreign-key, merge, …) are drawn only where Config.Features names them,
// as the target's Info says it supports them. A generator given none draws
// exactly what it drew before they existed, so WSS's groups, IsoRel's
// stress cases and every seed of the base subset stay as they were.

// can reports whether the generator may use feature f.
func (g *Generator) can(f string) bool { return g.feat[f] }

// A stmtFeature is a statement of its own that Statement draws now and
// then: make returns nil when the schema does not allow it (then a base
// statement is drawn instead).
type stmtFeature struct {
	feature string // a features.Names entry the target must support
	weight  float64
	make    func(g *Generator) sqlast.Stmt
}

// statementFeatures are the feature statements, in a fixed order (the
// order is part of what a seed draws).
var statementFeatures = []stmtFeature{
	{feature: "multi-table-update", weight: 1, make: (*Generator).multiUpdate},
	{feature: "multi-table-delete", weight: 1, make: (*Generator).multiDelete},
	{feature: "merge", weight: 1, make: (*Generator).merge},
	{feature: "cte-write", weight: 1, make: (*Generator).cteWrite},
	{feature: "lock-table", weight: 1, make: (*Generator).lockTable},
}

// featureStatementRatio is the share of statements drawn from
// statementFeatures when the target supports one at least. A case has
// some 20 statements: at 0.04 about half the cases carry one, so the
// features show in every campaign while the model, which stops at the
// first one it does not judge, still judges most cases to their end.
const featureStatementRatio = 0.04

// featureStatement draws a feature statement, or returns nil for a base
// one. Without a supported feature statement it draws nothing.
func (g *Generator) featureStatement() sqlast.Stmt {
	var avail []stmtFeature
	total := 0.0
	for _, f := range statementFeatures {
		if g.can(f.feature) {
			avail = append(avail, f)
			total += f.weight
		}
	}
	if len(avail) == 0 || !g.chance(featureStatementRatio) {
		return nil
	}
	x := g.r.Float64() * total
	for _, f := range avail {
		if x < f.weight {
			return f.make(g)
		}
		x -= f.weight
	}
	return avail[len(avail)-1].make(g)
}

// waitPolicy draws NOWAIT or SKIP LOCKED for a single-table locking read,
// as the target supports them.
func (g *Generator) waitPolicy() sqlast.WaitPolicy {
	nowait, skip := g.can("nowait"), g.can("skip-locked")
	if !nowait && !skip {
		return sqlast.WaitDefault
	}
	switch p := g.r.Float64(); {
	case p < 0.12 && nowait:
		return sqlast.WaitNowait
	case p >= 0.12 && p < 0.24 && skip:
		return sqlast.WaitSkipLocked
	}
	return sqlast.WaitDefault
}

// savepointRatio is the share of explicit transactions of two statements
// or more that set a savepoint.
const savepointRatio = 0.12

// savepoints puts SAVEPOINT sp1 before one of t's statements (one at least
// follows it), and after one statement at least, ROLLBACK TO it (where the
// target supports it) or now and then RELEASE it. PostgreSQL releases the
// row locks taken since the savepoint at ROLLBACK TO, InnoDB keeps them:
// the statements around it are where that shows.
func (g *Generator) savepoints(t *Txn) {
	if !g.can("savepoint") || len(t.Body) < 2 || !g.chance(savepointRatio) {
		return
	}
	at := g.r.IntN(len(t.Body) - 1)
	const name = "sp1"
	body := append([]sqlast.Stmt{}, t.Body[:at]...)
	body = append(body, &sqlast.Savepoint{Name: name})
	rest := t.Body[at:]
	end := 1 + g.r.IntN(len(rest)) // statements after the savepoint before its end
	body = append(body, rest[:end]...)
	switch p := g.r.Float64(); {
	case p < 0.7 && g.can("rollback-to-savepoint"):
		body = append(body, &sqlast.RollbackTo{Name: name})
	case p < 0.85:
		body = append(body, &sqlast.ReleaseSavepoint{Name: name})
	}
	t.Body = append(body, rest[end:]...)
}

// Connections draws which connection runs each of n transactions: one
// each (connection i+1 runs transaction i), or, where the target supports
// several transactions per connection, now and then fewer connections
// that run theirs one after another, as an application's pool does.
func (g *Generator) Connections(n int) []int {
	conns := make([]int, n)
	for i := range conns {
		conns[i] = i + 1
	}
	if !g.can("several-transactions-per-connection") || n < 3 || !g.chance(0.25) {
		return conns
	}
	m := 2 + g.r.IntN(n-2) // 2 ≤ m < n connections
	// Every connection runs one transaction at least; the rest go to
	// connections drawn at random.
	for i := m; i < n; i++ {
		conns[i] = 1 + g.r.IntN(m)
	}
	g.r.Shuffle(n, func(i, j int) { conns[i], conns[j] = conns[j], conns[i] })
	return conns
}

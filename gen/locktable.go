package gen

import "github.com/txlab/txlab/sqlast"

// weakerLockRatio is the share of FOR SHARE and FOR UPDATE clauses drawn as
// PostgreSQL's weaker FOR KEY SHARE and FOR NO KEY UPDATE where the target
// has them: the two pairs that do not conflict (FOR KEY SHARE with FOR NO
// KEY UPDATE, which a non-key UPDATE takes) are where the weaker locks show.
const weakerLockRatio = 0.4

// weaker returns the weaker strength w of locking clause m now and then,
// where the target supports feature (PostgreSQL's only); without it, m
// and no draw (so the base subset's seeds draw what they drew before).
func (g *Generator) weaker(m sqlast.LockMode, feature string, w sqlast.LockMode) sqlast.LockMode {
	if g.cfg.Dialect == sqlast.Postgres && g.can(feature) && g.chance(weakerLockRatio) {
		return w
	}
	return m
}

// lockTable draws PostgreSQL's LOCK TABLE t IN mode MODE [NOWAIT], in an
// explicit transaction only (outside one PostgreSQL refuses it: "LOCK
// TABLE can only be used in transaction blocks") and once per transaction
// at most (as applications take a table lock), in any of the eight modes
// of the table-level conflict table (15 docs, 13.3.1), which decide
// whether the transaction's and others' statements wait for it.
func (g *Generator) lockTable() sqlast.Stmt {
	if !g.inTxn || g.locked || g.cfg.Dialect != sqlast.Postgres {
		return nil
	}
	g.locked = true
	return &sqlast.LockTable{
		Tables: []string{g.table().Name},
		Mode:   sqlast.TableLockModes[g.r.IntN(len(sqlast.TableLockModes))],
		Nowait: g.chance(0.25),
	}
}

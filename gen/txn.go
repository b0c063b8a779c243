package gen

import "github.com/txlab/txlab/sqlast"

// Txn is one generated transaction: either an explicit BEGIN; body;
// COMMIT|ROLLBACK, or a single statement run in autocommit mode.
type Txn struct {
	Explicit bool
	Body     []sqlast.Stmt
	Rollback bool // explicit transactions only: end with ROLLBACK
}

// Stmts returns the statements in the order a connection submits them,
// including BEGIN and COMMIT/ROLLBACK for explicit transactions.
func (t *Txn) Stmts() []sqlast.Stmt {
	if !t.Explicit {
		return t.Body
	}
	out := make([]sqlast.Stmt, 0, len(t.Body)+2)
	out = append(out, &sqlast.Begin{})
	out = append(out, t.Body...)
	if t.Rollback {
		return append(out, &sqlast.Rollback{})
	}
	return append(out, &sqlast.Commit{})
}

// Transaction draws one transaction: with probability AutocommitRatio a
// single autocommit statement, otherwise BEGIN, 1..MaxStmts statements and
// COMMIT (or ROLLBACK with probability RollbackRatio).
func (g *Generator) Transaction() *Txn {
	if g.chance(g.cfg.AutocommitRatio) {
		return &Txn{Body: []sqlast.Stmt{g.Statement()}}
	}
	t := &Txn{Explicit: true}
	n := 1 + g.r.IntN(g.cfg.MaxStmts)
	g.inTxn, g.locked = true, false
	defer func() { g.inTxn = false }()
	for len(t.Body) < n {
		st := g.Statement()
		t.Body = append(t.Body, st)
		if name := writtenTable(st); name != "" && len(t.Body) < n && g.chance(readBackRatio) {
			t.Body = append(t.Body, readBack(name))
		}
	}
	t.Rollback = g.chance(g.cfg.RollbackRatio)
	g.savepoints(t)
	return t
}

// readBackRatio is the chance that a write in an explicit transaction is
// followed by a plain read of its whole table. What a transaction sees of
// its own writes, next to rows others changed since its snapshot, is where
// read-view bugs show (Troc's MDEV-26642 and MySQL #105670 listings both end
// with such a read); a random SELECT rarely covers the row just written.
const readBackRatio = 0.3

// writtenTable is the table st writes, "" for a read.
func writtenTable(st sqlast.Stmt) string {
	switch w := st.(type) {
	case *sqlast.Insert:
		return w.Table
	case *sqlast.Update:
		if len(w.Tables) > 0 && len(w.Set) > 0 {
			return w.Set[0].Table // the MySQL family's multiple-table UPDATE
		}
		return w.Table
	case *sqlast.Delete:
		if len(w.Targets) > 0 {
			return w.Targets[0]
		}
		return w.Table
	case *sqlast.Merge:
		return w.Table
	}
	return ""
}

// readBack is SELECT * FROM table.
func readBack(table string) sqlast.Stmt {
	return &sqlast.SelectStmt{Query: &sqlast.Select{
		Items: []sqlast.SelectItem{{Star: true}},
		From:  []sqlast.TableRef{&sqlast.Table{Name: table}},
	}}
}

// Step is one statement of the submitted order.
type Step struct {
	Conn int // 1-based connection number; transaction i runs on connection i+1
	Stmt sqlast.Stmt
}

// Interleave merges the transactions' statements into one submitted order,
// keeping each transaction's own order. The next statement is taken from a
// transaction chosen with probability proportional to its remaining
// statements, which makes every interleaving equally likely.
func (g *Generator) Interleave(txns []*Txn) []Step {
	conns := make([]int, len(txns))
	for i := range conns {
		conns[i] = i + 1
	}
	return g.InterleaveOn(txns, conns)
}

// InterleaveOn is Interleave with transaction i on connection conns[i]
// (1-based, every connection from 1 to the highest used): a connection's
// transactions run one after another, in their order.
func (g *Generator) InterleaveOn(txns []*Txn, conns []int) []Step {
	n := 0
	for _, c := range conns {
		n = max(n, c)
	}
	queues := make([][]sqlast.Stmt, n)
	total := 0
	for i, t := range txns {
		queues[conns[i]-1] = append(queues[conns[i]-1], t.Stmts()...)
		total += len(t.Stmts())
	}
	out := make([]Step, 0, total)
	for remaining := total; remaining > 0; remaining-- {
		k := g.r.IntN(remaining)
		for i, q := range queues {
			if k < len(q) {
				out = append(out, Step{Conn: i + 1, Stmt: q[0]})
				queues[i] = q[1:]
				break
			}
			k -= len(q)
		}
	}
	return out
}

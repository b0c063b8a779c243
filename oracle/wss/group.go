package wss

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// GroupConfig bounds a generated group (WriteCheck §5.2: WSS violations in
// the paper's study needed at most 5 transactions of at most 5 statements).
type GroupConfig struct {
	Dialect sqlast.Dialect
	// NoSharedLocks is passed to gen: the target rejects FOR SHARE.
	NoSharedLocks bool
	// NoLockingReads is passed to gen: the target has no locking reads.
	NoLockingReads bool
	// Features are passed to gen: the SQL features the target supports.
	Features []string
	MaxTxns  int // transactions per group, 2..5 (default 5)
	MaxStmts int // statements per explicit transaction, 1..10 (default 5)
	Orders   int // submitted orders per group (default 3)
	// AutocommitRatio and RollbackRatio are passed to gen (0: gen's defaults).
	AutocommitRatio float64
	RollbackRatio   float64
}

// maxDraws bounds the redraws of a transaction that must be explicit.
const maxDraws = 50

// Group generates one group from seed: one schema with its initial rows and
// up to MaxTxns transactions — at least one explicit and at least one write
// among them, autocommit transactions too, each explicit one ending in
// COMMIT or ROLLBACK at random — submitted in Orders different orders. Each
// order is one case; all share the setup and the transactions, so a
// violation in one order can be compared with the others. gen's statements
// use deterministic functions only and a write never depends on a value an
// earlier statement read, which is what a serial re-run needs.
func Group(seed uint64, cfg GroupConfig) []*testcase.Case {
	if cfg.MaxTxns == 0 {
		cfg.MaxTxns = 5
	}
	if cfg.MaxStmts == 0 {
		cfg.MaxStmts = 5
	}
	if cfg.Orders <= 0 {
		cfg.Orders = 3
	}
	g := gen.New(seed, gen.Config{
		Dialect: cfg.Dialect, NoSharedLocks: cfg.NoSharedLocks, NoLockingReads: cfg.NoLockingReads, Features: cfg.Features, MaxTxns: cfg.MaxTxns, MaxStmts: cfg.MaxStmts,
		AutocommitRatio: cfg.AutocommitRatio, RollbackRatio: cfg.RollbackRatio,
	})
	gc := g.Config()
	r := g.Rand()
	n := gc.MinTxns + r.IntN(gc.MaxTxns-gc.MinTxns+1)
	txns := make([]*gen.Txn, n)
	explicit := -1
	for i := range txns {
		txns[i] = g.Transaction()
		if txns[i].Explicit && explicit < 0 {
			explicit = i
		}
	}
	if explicit < 0 {
		// At least one explicit transaction: redraw the first until it is.
		for range maxDraws {
			if txns[0] = g.Transaction(); txns[0].Explicit {
				break
			}
		}
		if !txns[0].Explicit {
			txns[0] = &gen.Txn{Explicit: true, Body: txns[0].Body}
		}
		explicit = 0
	}
	if !anyWrite(txns) {
		// At least one write: add one to the explicit transaction.
		tables := g.Schema().Tables
		t := tables[r.IntN(len(tables))]
		var w sqlast.Stmt = g.Update(t)
		if r.IntN(2) == 0 {
			w = g.Insert(t)
		}
		txns[explicit].Body = append(txns[explicit].Body, w)
	}

	// Which connection runs each transaction is drawn once: the orders
	// differ only in how the connections' statements interleave.
	onConn := g.Connections(n)
	var setup []string
	for _, s := range g.Setup() {
		setup = append(setup, sqlast.Format(cfg.Dialect, s))
	}
	var cases []*testcase.Case
	var seen [][]int
	for attempt := 0; len(cases) < cfg.Orders && attempt < 4*cfg.Orders; attempt++ {
		steps := g.InterleaveOn(txns, onConn)
		conns := make([]int, len(steps))
		for i, st := range steps {
			conns[i] = st.Conn
		}
		if slices.ContainsFunc(seen, func(o []int) bool { return slices.Equal(o, conns) }) {
			continue // the same order again: the group has few interleavings
		}
		seen = append(seen, conns)
		c := &testcase.Case{
			Seed:     strconv.FormatUint(seed, 10),
			Comments: []string{fmt.Sprintf("wss group, submitted order %d", len(cases)+1)},
			Setup:    setup,
		}
		for _, st := range steps {
			c.Steps = append(c.Steps, testcase.Step{Conn: st.Conn, SQL: sqlast.Format(cfg.Dialect, st.Stmt)})
		}
		cases = append(cases, c)
	}
	return cases
}

func anyWrite(txns []*gen.Txn) bool {
	for _, t := range txns {
		for _, s := range t.Body {
			switch s := s.(type) {
			case *sqlast.Insert, *sqlast.Update, *sqlast.Delete, *sqlast.Merge:
				return true
			case *sqlast.With:
				if s.Writes() {
					return true
				}
			}
		}
	}
	return false
}

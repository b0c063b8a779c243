package wss_test

import (
	"slices"
	"testing"

	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/sqlast"
)

// TestGroupShape checks the §5.2 rules on many seeds: same setup and
// transactions in every order, distinct orders, at least one explicit
// transaction and one write, bounds, determinism.
func TestGroupShape(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		cfg := wss.GroupConfig{Dialect: sqlast.MySQL}
		g := wss.Group(seed, cfg)
		if len(g) == 0 || len(g) > 3 {
			t.Fatalf("seed %d: %d orders", seed, len(g))
		}
		again := wss.Group(seed, cfg)
		for i := range g {
			if !g[i].Equal(again[i]) {
				t.Fatalf("seed %d: not deterministic", seed)
			}
			if err := g[i].Validate(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		var orders [][]int
		for _, c := range g {
			if !slices.Equal(c.Setup, g[0].Setup) {
				t.Fatalf("seed %d: orders differ in setup", seed)
			}
			txns := wss.Transactions(c)
			if len(txns) > 5 {
				t.Fatalf("seed %d: %d transactions", seed, len(txns))
			}
			explicit, writes := false, false
			for _, tx := range txns {
				explicit = explicit || tx.Explicit
				if n := len(tx.Steps); tx.Explicit && n > 5+2+1 {
					t.Fatalf("seed %d: transaction of %d statements", seed, n)
				}
				for _, s := range tx.Steps {
					writes = writes || wss.IsWrite(c.Steps[s].SQL)
				}
			}
			if !explicit || !writes {
				t.Fatalf("seed %d: explicit %v writes %v\n%s", seed, explicit, writes, c)
			}
			var conns []int
			for _, s := range c.Steps {
				conns = append(conns, s.Conn)
			}
			if slices.ContainsFunc(orders, func(o []int) bool { return slices.Equal(o, conns) }) {
				t.Fatalf("seed %d: the same submitted order twice", seed)
			}
			orders = append(orders, conns)
		}
	}
}

package scope_test

import (
	"testing"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// TestGeneratedPass: the executor checks every case it runs, so every case
// the generator makes, and IsoRel's instrumented rewrite of it, must pass
// the check in the strict mode, in each dialect: 2000 cases a dialect (200
// with -short); every fifth is also instrumented and drawn as WSS's groups.
func TestGeneratedPass(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	for _, info := range []target.Info{
		{DBMS: "mariadb", Dialect: sqlast.MySQL, Schema: "txlab", Returning: true},
		{DBMS: "mysql", Dialect: sqlast.MySQL, Schema: "txlab_w2"},
		{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab", Returning: true},
		{DBMS: "sqlite", Dialect: sqlast.SQLite, Schema: "main", Returning: true},
	} {
		t.Run(info.DBMS, func(t *testing.T) {
			rules := scope.For(info, false)
			check := func(what string, c *testcase.Case) bool {
				for _, s := range c.Setup {
					if err := scope.Check(s, rules); err != nil {
						t.Errorf("%s: setup %q: %v", what, s, err)
						return false
					}
				}
				for _, s := range c.Steps {
					if err := scope.Check(s.SQL, rules); err != nil {
						t.Errorf("%s: step %q: %v", what, s.SQL, err)
						return false
					}
				}
				return true
			}
			for i := range n {
				c := gen.Case(gen.CaseSeed(42, i), gen.Config{Dialect: info.Dialect})
				if !check("generated case "+c.Seed, c) {
					return
				}
				if i%5 != 0 {
					continue // instrumenting is slower than generating; a fifth is plenty
				}
				// WSS's groups: the same generator, in several submitted orders.
				for _, g := range wss.Group(gen.CaseSeed(7, i), wss.GroupConfig{Dialect: info.Dialect, MaxStmts: 10}) {
					if !check("WSS group case "+g.Seed, g) {
						return
					}
				}
				p, err := instrument.Instrument(c, info)
				if err != nil {
					t.Fatalf("instrument case %s: %v", c.Seed, err)
				}
				if !check("IsoRel's rewrite of case "+c.Seed, p.Case) {
					return
				}
			}
		})
	}
}

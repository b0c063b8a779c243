package scope_test

import (
	"testing"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
)

// TestGeneratedCrossTablePass: the generator's writes across tables
// (multiple-table UPDATE and DELETE, UPDATE … FROM, DELETE … USING, MERGE,
// data-modifying CTEs), and IsoRel's rewrite of their cases, pass the
// check in each dialect.
func TestGeneratedCrossTablePass(t *testing.T) {
	feats := []string{"multi-table-update", "multi-table-delete", "merge", "cte-write"}
	n := 600
	if testing.Short() {
		n = 100
	}
	for _, info := range []target.Info{
		{DBMS: "mariadb", Dialect: sqlast.MySQL, Schema: "txlab", Returning: true},
		{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab", Returning: true},
		{DBMS: "sqlite", Dialect: sqlast.SQLite, Schema: "main", Returning: true},
	} {
		t.Run(info.DBMS, func(t *testing.T) {
			rules := scope.For(info, false)
			steps := 0
			for i := range n {
				c := gen.Case(gen.CaseSeed(43, i), gen.Config{Dialect: info.Dialect, Features: feats})
				p, err := instrument.Instrument(c, info)
				if err != nil {
					t.Fatalf("instrument case %s: %v", c.Seed, err)
				}
				for _, cs := range [][]string{c.Setup, p.Case.Setup, stepsOf(c), stepsOf(p.Case)} {
					for _, s := range cs {
						if err := scope.Check(s, rules); err != nil {
							t.Fatalf("case %s: %q: %v", c.Seed, s, err)
						}
					}
				}
				steps += len(c.Steps)
			}
			if steps < n {
				t.Errorf("only %d steps", steps)
			}
		})
	}
}

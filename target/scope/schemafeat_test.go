package scope_test

import (
	"testing"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// TestGeneratedSchemaFeaturesPass: cases with the schema features
// (auto-increment, sequence, partial-index, expression-index,
// generated-column) and IsoRel's rewrite of them pass the check in each
// dialect that has them.
func TestGeneratedSchemaFeaturesPass(t *testing.T) {
	for _, tc := range []struct {
		info target.Info
		feat []string
	}{
		{target.Info{DBMS: "mariadb", Dialect: sqlast.MySQL, Schema: "txlab", Returning: true},
			[]string{"auto-increment", "sequence", "generated-column"}},
		{target.Info{DBMS: "tidb", Dialect: sqlast.MySQL, Schema: "txlab"},
			[]string{"auto-increment", "sequence", "generated-column", "expression-index"}},
		{target.Info{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab", Returning: true},
			[]string{"auto-increment", "sequence", "partial-index", "expression-index", "generated-column"}},
		{target.Info{DBMS: "sqlite", Dialect: sqlast.SQLite, Schema: "main", Returning: true},
			[]string{"auto-increment", "partial-index", "expression-index", "generated-column"}},
	} {
		t.Run(tc.info.DBMS, func(t *testing.T) {
			rules := scope.For(tc.info, false)
			for i := range 300 {
				c := gen.Case(gen.CaseSeed(44, i), gen.Config{Dialect: tc.info.Dialect, Features: tc.feat})
				p, err := instrument.Instrument(c, tc.info)
				if err != nil {
					t.Fatalf("instrument case %s: %v", c.Seed, err)
				}
				for _, s := range append(append(append([]string{}, c.Setup...), stepSQL(c)...), append(p.Case.Setup, stepSQL(p.Case)...)...) {
					if err := scope.Check(s, rules); err != nil {
						t.Fatalf("case %s: %q: %v", c.Seed, s, err)
					}
				}
			}
		})
	}
}

func stepSQL(c *testcase.Case) []string {
	var out []string
	for _, s := range c.Steps {
		out = append(out, s.SQL)
	}
	return out
}

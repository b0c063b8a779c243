package scope_test

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
)

// TestGeneratedForeignKeysPass: cases drawn with foreign keys, cascades
// and deferred constraints, and IsoRel's rewrite of them, pass the strict
// check in each dialect (ON DELETE CASCADE is the one CASCADE allowed).
func TestGeneratedForeignKeysPass(t *testing.T) {
	feats := []string{"foreign-key", "on-delete-cascade", "deferred-constraint"}
	for _, info := range []target.Info{
		{DBMS: "mariadb", Dialect: sqlast.MySQL, Schema: "txlab", Returning: true, Features: feats},
		{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab", Returning: true, Features: feats},
		{DBMS: "sqlite", Dialect: sqlast.SQLite, Schema: "main", Returning: true, Features: feats},
	} {
		t.Run(info.DBMS, func(t *testing.T) {
			rules := scope.For(info, false)
			fks := 0
			for i := range 300 {
				c := gen.Case(gen.CaseSeed(43, i), gen.Config{Dialect: info.Dialect, Features: feats})
				if !strings.Contains(strings.Join(c.Setup, " "), "FOREIGN KEY") {
					continue
				}
				fks++
				p, err := instrument.Instrument(c, info)
				if err != nil {
					t.Fatalf("instrument case %s: %v", c.Seed, err)
				}
				for _, cc := range []struct {
					what  string
					setup []string
					steps []string
				}{{"case", c.Setup, stepsOf(c)}, {"IsoRel's rewrite", p.Case.Setup, stepsOf(p.Case)}} {
					for _, s := range append(cc.setup, cc.steps...) {
						if err := scope.Check(s, rules); err != nil {
							t.Fatalf("%s of %s: %q: %v", cc.what, c.Seed, s, err)
						}
					}
				}
			}
			if fks == 0 {
				t.Fatal("no case with a foreign key")
			}
		})
	}
}

package gen

import (
	"context"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/sqlite"
)

var fkFeatures = []string{"foreign-key", "on-delete-cascade", "deferred-constraint"}

// TestForeignKeyShare: with the features, roughly a third of the cases
// have a foreign key, some of them with a cascade; deferral only where
// the dialect has it, and nothing of it without the features.
func TestForeignKeyShare(t *testing.T) {
	const n = 600
	for _, d := range dialects {
		fk, cascade, deferred, plain := 0, 0, 0, 0
		for i := range n {
			seed := CaseSeed(11, i)
			setup := strings.Join(Case(seed, Config{Dialect: d, Features: fkFeatures}).Setup, "\n")
			if strings.Contains(setup, "FOREIGN KEY") {
				fk++
			}
			if strings.Contains(setup, "ON DELETE CASCADE") {
				cascade++
			}
			if strings.Contains(setup, "DEFERRABLE INITIALLY DEFERRED") {
				deferred++
			}
			if strings.Contains(strings.Join(Case(seed, Config{Dialect: d}).Setup, "\n"), "REFERENCES") {
				plain++
			}
		}
		share := float64(fk) / n
		t.Logf("%s: foreign key in %d of %d cases (%.0f%%), cascade %d, deferred %d", d, fk, n, 100*share, cascade, deferred)
		if share < 0.09 || share > 0.23 {
			t.Errorf("%s: foreign key in %.0f%% of cases, want about 12-20%%", d, 100*share)
		}
		if cascade == 0 {
			t.Errorf("%s: no ON DELETE CASCADE", d)
		}
		if want := d != sqlast.MySQL; (deferred > 0) != want {
			t.Errorf("%s: %d deferred foreign keys, want some: %v", d, deferred, want)
		}
		if plain > 0 {
			t.Errorf("%s: %d cases without the feature have a foreign key", d, plain)
		}
	}
}

// TestForeignKeyInitialRows: every initial row of a child references a
// parent's initial row or is NULL there, and the child's column has the
// parent column's type.
func TestForeignKeyInitialRows(t *testing.T) {
	for _, d := range dialects {
		checked := 0
		for i := range 300 {
			g := New(CaseSeed(5, i), Config{Dialect: d, Features: fkFeatures})
			rows := map[string]*sqlast.Insert{}
			for _, s := range g.InitialRows() {
				ins := s.(*sqlast.Insert)
				rows[ins.Table] = ins
			}
			for _, ch := range g.Schema().Tables {
				for _, fk := range ch.ForeignKeys {
					c := ch.Column(fk.Column)
					if pc := fk.Parent.Column(fk.ParentColumn); pc.Type != c.Type {
						t.Errorf("%s seed %d: %s.%s references %s.%s of another type", d, i, ch.Name, c.Name, fk.Parent.Name, pc.Name)
					}
					keys := map[string]bool{}
					if p := rows[fk.Parent.Name]; p != nil {
						at := columnIndex(fk.Parent, fk.ParentColumn)
						for _, r := range p.Values {
							keys[sqlast.Format(d, &sqlast.SelectStmt{Query: &sqlast.Select{Items: []sqlast.SelectItem{{Expr: r[at]}}}})] = true
						}
					}
					if ins := rows[ch.Name]; ins != nil {
						at := columnIndex(ch, fk.Column)
						for _, r := range ins.Values {
							if l, ok := r[at].(*sqlast.Literal); ok && l.Kind == sqlast.LitNull {
								continue
							}
							checked++
							if k := sqlast.Format(d, &sqlast.SelectStmt{Query: &sqlast.Select{Items: []sqlast.SelectItem{{Expr: r[at]}}}}); !keys[k] {
								t.Errorf("%s seed %d: initial row of %s references %s, no key of %s", d, i, ch.Name, k, fk.Parent.Name)
							}
						}
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no initial row references a parent", d)
		}
	}
}

// TestValidityForeignKeySQLite runs cases with foreign keys on SQLite:
// under 1 % invalid statements, and the foreign key checks both fail and
// pass (constraint errors among the outcomes).
func TestValidityForeignKeySQLite(t *testing.T) {
	ctx := context.Background()
	tg, err := sqlite.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkFeatureValidity(t, tg, sqlast.SQLite, numCases(300), fkFeatures, nil)
}

// checkFeatureValidity is checkValidity for cases drawn with features,
// which must also give constraint errors now and then.
func checkFeatureValidity(t *testing.T, tg target.Target, d sqlast.Dialect, n int, feats []string, prep sessionPrep) {
	t.Helper()
	tl := &tally{classes: map[target.ErrorClass]int{}}
	for i := range n {
		seed := CaseSeed(20240602, i)
		c := Case(seed, Config{Dialect: d, Features: feats})
		if err := runCase(t.Context(), tg, c, prep, tl); err != nil {
			t.Fatalf("case seed %d: %v\n%s", seed, err, c)
		}
	}
	t.Logf("%s: %s", d, tl)
	if tl.ratio() >= maxInvalid {
		t.Errorf("%s rejected %.2f%% of generated statements as invalid (limit %.0f%%):\n%s",
			d, 100*tl.ratio(), 100*maxInvalid, strings.Join(tl.invalid, "\n"))
	}
	if tl.classes[target.ClassConstraint] == 0 {
		t.Errorf("%s: no constraint error in %d cases with foreign keys", d, n)
	}
}

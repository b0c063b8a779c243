package gen

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/mysql"
	"github.com/txlab/txlab/target/postgres"
	"github.com/txlab/txlab/target/sqlite"
	"github.com/txlab/txlab/testcase"
)

// schemaFeatureNames are the features schemafeat.go draws.
var schemaFeatureNames = []string{"auto-increment", "sequence", "partial-index", "expression-index", "generated-column"}

// TestSchemaFeatureRates checks that each schema feature a dialect's
// target supports shows in roughly 5–15 % of cases (a wider band, 2–25 %,
// for the draw's noise and the tables eligible), and never where it is
// not supported.
func TestSchemaFeatureRates(t *testing.T) {
	for _, tc := range []struct {
		d    sqlast.Dialect
		feat []string
	}{
		{sqlast.Postgres, schemaFeatureNames},
		{sqlast.MySQL, []string{"auto-increment", "sequence", "generated-column"}},
		{sqlast.SQLite, []string{"auto-increment", "partial-index", "expression-index", "generated-column"}},
	} {
		const n = 600
		count := map[string]int{}
		for i := range n {
			c := Case(CaseSeed(7, i), Config{Dialect: tc.d, Features: tc.feat})
			for _, f := range features.Of(c) {
				count[f]++
			}
		}
		for _, f := range schemaFeatureNames {
			share := float64(count[f]) / n
			supported := false
			for _, g := range tc.feat {
				supported = supported || g == f
			}
			switch {
			case !supported && count[f] > 0:
				t.Errorf("%s: %s in %d cases, but not supported", tc.d, f, count[f])
			case supported && (share < 0.02 || share > 0.25):
				t.Errorf("%s: %s in %.1f%% of cases, want about 5–15%%", tc.d, f, 100*share)
			}
		}
		t.Logf("%s: %v", tc.d, count)
	}
}

// TestSchemaFeaturesNeverWritten checks that no INSERT or UPDATE names a
// generated column, and that every generated statement parses back.
func TestSchemaFeaturesNeverWritten(t *testing.T) {
	for d, feat := range map[sqlast.Dialect][]string{
		sqlast.Postgres: schemaFeatureNames,
		sqlast.MySQL:    {"auto-increment", "sequence", "generated-column", "expression-index"},
		sqlast.SQLite:   {"auto-increment", "partial-index", "expression-index", "generated-column"},
	} {
		for i := range 300 {
			c := Case(CaseSeed(11, i), Config{Dialect: d, Features: feat})
			for _, sql := range append(append([]string{}, c.Setup...), stepsSQL(c.Steps)...) {
				st, err := sqlast.Parse(d, sql)
				if err != nil {
					t.Fatalf("%s seed %s: %q does not parse: %v", d, c.Seed, sql, err)
				}
				var written []string
				switch st := st.(type) {
				case *sqlast.Insert:
					written = st.Columns
					if st.OnConflict != nil {
						for _, a := range st.OnConflict.Set {
							written = append(written, a.Column)
						}
					}
				case *sqlast.Update:
					for _, a := range st.Set {
						written = append(written, a.Column)
					}
				}
				for _, w := range written {
					if strings.HasPrefix(w, "g") {
						t.Errorf("%s seed %s: %q writes generated column %s", d, c.Seed, sql, w)
					}
				}
			}
		}
	}
}

// TestSchemaFeaturesValiditySQLite runs cases with SQLite's features on
// SQLite: under 1 % of the statements may be rejected as invalid, and
// every setup must succeed.
func TestSchemaFeaturesValiditySQLite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tg, err := sqlite.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkSchemaFeatureValidity(ctx, t, tg, numCases(300), nil)
}

// checkSchemaFeatureValidity is checkValidity with the target's features.
func checkSchemaFeatureValidity(ctx context.Context, t *testing.T, tg target.Target, n int, prep sessionPrep) {
	t.Helper()
	info := tg.Info()
	tl := &tally{classes: map[target.ErrorClass]int{}}
	seen := map[string]int{}
	for i := range n {
		c := Case(CaseSeed(20261127, i), Config{Dialect: info.Dialect, Features: info.Features})
		for _, f := range features.Of(c) {
			seen[f]++
		}
		if err := runCase(ctx, tg, c, prep, tl); err != nil {
			t.Fatalf("case seed %s: %v\n%s", c.Seed, err, c)
		}
	}
	t.Logf("%s: %s; features %v", info.DBMS, tl, seen)
	for _, s := range tl.invalid {
		t.Log(s)
	}
	if tl.ratio() >= maxInvalid {
		t.Errorf("%s rejected %.2f%% of generated statements as invalid:\n%s", info.DBMS, 100*tl.ratio(), strings.Join(tl.invalid, "\n"))
	}
	for _, f := range schemaFeatureNames {
		for _, g := range info.Features {
			// At about 10 % of cases each, 100 cases show every one.
			if f == g && seen[f] == 0 && n >= 100 {
				t.Errorf("%s: no case with %s", info.DBMS, f)
			}
		}
	}
}

func stepsSQL(steps []testcase.Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.SQL)
	}
	return out
}

// TestSchemaFeaturesValidityPostgres and …MariaDB: the same on throwaway
// servers, with the server's own feature list.
func TestSchemaFeaturesValidityPostgres(t *testing.T) {
	srv := localdbtest.Server(t, localdb.Postgres)
	tg, err := postgres.Open(t.Context(), srv.DSN(), "", "txlab")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkSchemaFeatureValidity(t.Context(), t, tg, serverCases(), func(ctx context.Context, s target.Session) error {
		_, err := s.Exec(ctx, "SET lock_timeout = '20ms'")
		return err
	})
}

func TestSchemaFeaturesValidityMariaDB(t *testing.T) {
	srv := localdbtest.Server(t, localdb.MariaDB)
	tg, err := mysql.OpenURL(t.Context(), srv.DSN(), "txlab")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkSchemaFeatureValidity(t.Context(), t, tg, serverCases(), func(ctx context.Context, s target.Session) error {
		_, err := s.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = 0")
		return err
	})
}

// TestSQLiteUpsertTarget: on SQLite an upsert never names a UNIQUE set that
// holds the AUTOINCREMENT column (the rowid alias) beside other columns,
// which SQLite matches with no index ("ON CONFLICT clause does not match
// any PRIMARY KEY or UNIQUE constraint"); the column alone it may.
func TestSQLiteUpsertTarget(t *testing.T) {
	upserts := 0
	for i := range 2000 {
		c := Case(CaseSeed(11, i), Config{Dialect: sqlast.SQLite, Features: []string{"auto-increment"}})
		auto := map[string]string{}
		for _, s := range c.Setup {
			if ct, ok := mustParse(t, sqlast.SQLite, s).(*sqlast.CreateTable); ok {
				for _, col := range ct.Columns {
					if col.AutoIncrement {
						auto[ct.Name] = col.Name
					}
				}
			}
		}
		for _, st := range c.Steps {
			ins, ok := mustParse(t, sqlast.SQLite, st.SQL).(*sqlast.Insert)
			if !ok || ins.OnConflict == nil || auto[ins.Table] == "" {
				continue
			}
			upserts++
			if cols := ins.OnConflict.Columns; len(cols) > 1 && slices.Contains(cols, auto[ins.Table]) {
				t.Fatalf("case %d: %s", i, st.SQL)
			}
		}
	}
	if upserts < 20 {
		t.Fatalf("only %d upserts on tables with an AUTOINCREMENT column", upserts)
	}
}

func mustParse(t *testing.T, d sqlast.Dialect, sql string) sqlast.Stmt {
	t.Helper()
	s, err := sqlast.Parse(d, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// TestMySQLGeneratedNotOverAutoIncrement: on the MySQL family no generated
// column is computed from the AUTO_INCREMENT column (MySQL and TiDB refuse
// it, error 3109), while generated columns over the table's other columns
// are still drawn.
func TestMySQLGeneratedNotOverAutoIncrement(t *testing.T) {
	generated := 0
	for i := range 4000 {
		c := Case(CaseSeed(13, i), Config{Dialect: sqlast.MySQL, Features: []string{"auto-increment", "generated-column"}})
		for _, s := range c.Setup {
			ct, ok := mustParse(t, sqlast.MySQL, s).(*sqlast.CreateTable)
			if !ok {
				continue
			}
			auto := ""
			for _, col := range ct.Columns {
				if col.AutoIncrement {
					auto = col.Name
				}
			}
			for _, col := range ct.Columns {
				if col.Generated == nil || auto == "" {
					continue
				}
				generated++
				sqlast.Walk(col.Generated.Expr, func(n any) bool {
					if r, ok := n.(*sqlast.ColumnRef); ok && r.Column == auto {
						t.Fatalf("case %d: %s", i, s)
					}
					return true
				})
			}
		}
	}
	if generated < 5 {
		t.Fatalf("only %d generated columns in tables with an AUTO_INCREMENT column", generated)
	}
}

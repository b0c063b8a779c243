package instrument_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// TestForeignKeys: the instrumented CREATE TABLE keeps its foreign keys,
// and a case with a statement that may set off a key's action is not
// judged, naming on-delete-cascade (testdata/fk/*.txn, header
// "unjudged: yes|no"), in every dialect.
func TestForeignKeys(t *testing.T) {
	files, err := filepath.Glob("testdata/fk/*.txn")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, f := range files {
		c, err := testcase.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for _, line := range c.Comments {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "unjudged: "); ok {
				want = v
			}
		}
		if want == "" {
			t.Fatalf("%s: no unjudged: header", f)
		}
		for _, info := range []target.Info{
			{DBMS: "mariadb", Dialect: sqlast.MySQL, Schema: "txlab", Returning: true},
			{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab", Returning: true},
			{DBMS: "sqlite", Dialect: sqlast.SQLite, Schema: "main", Returning: true},
		} {
			p, err := instrument.Instrument(c, info)
			if err != nil {
				t.Fatalf("%s on %s: %v", f, info.DBMS, err)
			}
			for i, s := range c.Setup {
				if strings.Contains(s, "REFERENCES") && !strings.Contains(p.Case.Setup[i], strings.TrimSuffix(s[strings.Index(s, "REFERENCES"):], ")")) {
					t.Errorf("%s on %s: the instrumented %q lost its foreign key", f, info.DBMS, p.Case.Setup[i])
				}
			}
			got := p.Unjudged.Reason == instrument.MayCascade
			if got != (want == "yes") || got && !strings.HasPrefix(p.Unjudged.String(), "a statement that may cascade (on-delete-cascade): ") {
				t.Errorf("%s on %s: Unjudged = %q, want unjudged: %s", f, info.DBMS, p.Unjudged, want)
			}
		}
	}
}

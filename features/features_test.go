package features

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/internal/expectfile"
	"github.com/txlab/txlab/testcase"
)

// TestOf: the cases of testdata use exactly the features expect.txt names,
// and every name of Names is found in at least one of them (a feature added
// without a case that shows it fails here).
func TestOf(t *testing.T) {
	seen := map[string]bool{}
	for _, fs := range expectfile.Read(t, filepath.Join("testdata", "expect.txt"), 2, 0) {
		c, err := testcase.ParseFile(filepath.Join("testdata", fs[0]))
		if err != nil {
			t.Fatal(err)
		}
		got := Of(c)
		want := []string{}
		if fs[1] != "none" {
			want = strings.Split(fs[1], ",")
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: features %v, want %v", fs[0], got, want)
		}
		for _, f := range got {
			seen[f] = true
		}
	}
	for _, n := range Names {
		if !seen[n] {
			t.Errorf("feature %s: no case in testdata shows it", n)
		}
	}
}

// FuzzOf: any statement text gives known feature names, each once, in the
// order of Names.
func FuzzOf(f *testing.F) {
	for _, s := range []string{"SAVEPOINT a", "UPDATE a JOIN b ON a.x = b.x SET a.y = 1", "CREATE INDEX i ON t ((a + 1)) WHERE a > 0", "1> ROLLBACK TO a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		c := &testcase.Case{Setup: []string{sql}, Steps: []testcase.Step{{Conn: 1, SQL: sql}, {Conn: 1, SQL: sql}}}
		got := Of(c)
		last := -1
		for _, n := range got {
			i := slices.Index(Names, n)
			if i <= last {
				t.Fatalf("Of(%q) = %v: unknown, repeated or out of order", sql, got)
			}
			last = i
		}
	})
}

func TestInStatement(t *testing.T) {
	tests := []struct {
		sql   string
		setup bool
		want  string
	}{
		{"MERGE INTO p USING c ON p.id = c.p_id WHEN MATCHED THEN DELETE", false, "merge"},
		{"SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT", false, "nowait"},
		{"CREATE TABLE c (id INT, p INT REFERENCES p (id) ON DELETE CASCADE)", true, "foreign-key on-delete-cascade"},
		{"CREATE TABLE c (id INT, p INT REFERENCES p (id))", false, "foreign-key"},
		{"CREATE INDEX i ON t (c) WHERE c > 0", false, "partial-index"},
		{"CREATE INDEX i ON t (c) WHERE c > 0", true, "partial-index"},
		{"CREATE SEQUENCE s", false, "sequence"},
		{"SELECT * FROM t", false, ""},
		{"SAVEPOINT a", false, ""}, // a property of the steps together: Of
	}
	for _, tt := range tests {
		if got := strings.Join(InStatement(tt.sql, tt.setup), " "); got != tt.want {
			t.Errorf("InStatement(%q, %v) = %q, want %q", tt.sql, tt.setup, got, tt.want)
		}
	}
}

func TestUses(t *testing.T) {
	tests := []struct {
		sql, name string
		want      bool
	}{
		{"SELECT * FROM t FOR UPDATE SKIP LOCKED", "skip-locked", true},
		{"select * from t for share skip\n\tlocked;", "skip-locked", true},
		{"SELECT * FROM t FOR UPDATE NOWAIT", "skip-locked", false},
		{"SELECT * FROM t FOR UPDATE NOWAIT", "nowait", true},
		{"UPDATE t0 SET c = 1 WHERE id IN (SELECT id FROM t1 JOIN t2 ON t1.a = t2.a)", "multi-table-update", false},
		{"UPDATE t0 JOIN t1 ON t0.a = t1.a SET t0.c = 1", "multi-table-update", true},
		{"CREATE TABLE c (id INT, p INT REFERENCES p (id))", "foreign-key", true},
		{"SAVEPOINT a", "savepoint", false}, // a property of the steps together: Of
		{"SELECT 1", "no-such-feature", false},
	}
	for _, tt := range tests {
		if got := Uses(tt.sql, tt.name); got != tt.want {
			t.Errorf("Uses(%q, %q) = %v, want %v", tt.sql, tt.name, got, tt.want)
		}
	}
}

// TestParse: all is the target's features, none the base subset; a name
// in the base subset is left out, one the target lacks refused.
func TestParse(t *testing.T) {
	supported := []string{"savepoint", "nowait"}
	for spec, want := range map[string][]string{"all": nil, "": nil, "none": {}, " savepoint, nowait ": {"savepoint", "nowait"}, "savepoint,replace": {"savepoint"}} {
		got, err := Parse(spec, supported)
		if err != nil || (got == nil) != (want == nil) || !slices.Equal(got, want) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", spec, got, err, want)
		}
	}
	for spec, want := range map[string]string{"merge": "merge is not supported (supported: savepoint, nowait)", "savepoints": `unknown feature "savepoints"`} {
		if _, err := Parse(spec, supported); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want %q", spec, err, want)
		}
	}
	if _, err := Parse("merge", nil); err != nil {
		t.Errorf("merge before the target is known: %v", err)
	}
}

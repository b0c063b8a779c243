package semantics_test

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
)

// TestJudge checks the one verdict policy against testdata/judge.txt: each
// line is a run (DBMS, level, setting, model, strict), the classes of an
// anomaly, and the verdict and rule slug it must get ("none": no finding).
func TestJudge(t *testing.T) {
	n := 0
	for _, row := range readTable(t, "judge.txt", 6, 2) {
		in, a, b := row.line, row.in, row.out
		var err error
		j := semantics.Judge{DBMS: a[0], Level: target.Level(a[1]), Strict: a[4] == "strict"}
		if a[2] != "-" {
			k, v, _ := strings.Cut(a[2], "=")
			j.Settings = map[string]string{k: v}
		}
		if a[3] != "-" {
			if j.Model, err = semantics.ParseModel(a[3]); err != nil {
				t.Fatal(err)
			}
		}
		var classes []semantics.Anomaly
		for _, c := range strings.Split(a[5], ",") {
			classes = append(classes, semantics.Anomaly(c))
		}
		n++
		d, ok := j.Decide(semantics.Evidence{Classes: classes})
		got, rule := "none", "-"
		if ok {
			got, rule = string(d.Verdict), d.Rule.Name
			if d.Rule.Text == "" || d.Rule.Source == "" {
				t.Errorf("%s: rule %s lacks text or source: %+v", in, rule, d.Rule)
			}
		}
		if got != b[0] || rule != b[1] {
			t.Errorf("%s: got %s %s, want %s %s", in, got, rule, b[0], b[1])
		}
	}
	if n == 0 {
		t.Fatal("no lines in testdata/judge.txt")
	}
}

func TestParseModel(t *testing.T) {
	for in, want := range map[string]semantics.Model{
		"":                    "",
		"SER":                 semantics.Model(target.Serializable),
		"read committed":      semantics.Model(target.ReadCommitted),
		"sser":                semantics.StrictSerializable,
		"strict-serializable": semantics.StrictSerializable,
	} {
		if got, err := semantics.ParseModel(in); err != nil || got != want {
			t.Errorf("ParseModel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := semantics.ParseModel("causal"); err == nil || !strings.Contains(err.Error(), "unknown model") {
		t.Errorf("ParseModel(causal): %v, want unknown model", err)
	}
}

// TestHierarchy pins the one anomaly hierarchy every oracle's names go
// through.
func TestHierarchy(t *testing.T) {
	for _, tc := range []struct {
		a, b semantics.Anomaly
		want bool
	}{
		{semantics.GSingle, semantics.G2Item, true},
		{semantics.GSingle, semantics.G2, true},
		{semantics.LostUpdate, semantics.GSingle, true},
		{semantics.WriteSkew, semantics.GSingle, false},
		{semantics.WriteSkew, semantics.G2Item, true},
		{"G1c-process", semantics.G1, true},
		{semantics.AbortedRead, semantics.G1, true},
		{semantics.G2Item, semantics.GSingle, false},
		{semantics.ThinAirRead, semantics.G2, false},
	} {
		if got := tc.a.Within(tc.b); got != tc.want {
			t.Errorf("%s within %s = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

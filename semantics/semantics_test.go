package semantics_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
)

// TestLookup checks the table row by row against testdata/lookup.txt.
func TestLookup(t *testing.T) {
	n := 0
	for _, row := range readTable(t, "lookup.txt", 3, 4) {
		in, a, b := row.line, row.in, row.out
		var settings map[string]string
		if a[2] != "-" {
			k, v, _ := strings.Cut(a[2], "=")
			settings = map[string]string{k: v}
		}
		p := semantics.Lookup(a[0], target.Level(a[1]), settings)
		n++
		if got := map[bool]string{true: "yes", false: "no"}[p.Serializable]; got != b[0] {
			t.Errorf("%s: serializable %s, want %s", in, got, b[0])
		}
		reads := "-"
		if p.ReadsAnyOrder != nil {
			reads = p.ReadsAnyOrder.Name
		}
		if reads != b[1] {
			t.Errorf("%s: reads-any-order %s, want %s", in, reads, b[1])
		}
		var wss []string
		for _, m := range p.WSS {
			wss = append(wss, m.Rule.Name)
			if m.Rule.Text == "" || m.Kind == "" {
				t.Errorf("%s: mechanism %s lacks text or kind", in, m.Rule.Name)
			}
		}
		want := b[2]
		if want == "-" {
			want = ""
		}
		if got := strings.Join(wss, ","); got != want {
			t.Errorf("%s: WSS mechanisms %q, want %q", in, got, want)
		}
		var forb []string
		for _, a := range p.Forbidden {
			forb = append(forb, string(a))
		}
		if got := strings.Join(forb, ","); got != b[3] {
			t.Errorf("%s: forbidden %q, want %q", in, got, b[3])
		}
	}
	if n == 0 {
		t.Fatal("no rows in testdata/lookup.txt")
	}
}

// tableRow is one line of a testdata table: "in fields | out fields".
type tableRow struct {
	line    string
	in, out []string
}

// readTable reads testdata/name, skipping blank lines and # comments, and
// checks each line has nIn fields before the "|" and nOut after it.
func readTable(t *testing.T, name string, nIn, nOut int) []tableRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var rows []tableRow
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		in, out, ok := strings.Cut(line, "|")
		r := tableRow{line: in, in: strings.Fields(in), out: strings.Fields(out)}
		if !ok || len(r.in) != nIn || len(r.out) != nOut {
			t.Fatalf("%s: bad line %q", name, line)
		}
		rows = append(rows, r)
	}
	return rows
}

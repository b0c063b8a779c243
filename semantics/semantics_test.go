package semantics_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
)

// TestLookup checks the table row by row against testdata/lookup.txt.
func TestLookup(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "lookup.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		in, out, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		a, b := strings.Fields(in), strings.Fields(out)
		if len(a) != 3 || len(b) != 4 {
			t.Fatalf("bad line %q", line)
		}
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

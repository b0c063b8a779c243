package reduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestLockWeakenings: a locking clause weakens one strength at a time
// (PostgreSQL's four, the MySQL family's two) down to none, a LOCK TABLE
// one mode at a time and loses its NOWAIT.
func TestLockWeakenings(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "locks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ln, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, " | ")
		if len(f) != 3 {
			t.Fatalf("locks.txt:%d: want dialect | statement | weakenings", ln+1)
		}
		d, err := sqlast.ParseDialect(f[0])
		if err != nil {
			t.Fatalf("locks.txt:%d: %v", ln+1, err)
		}
		var want []string
		if f[2] != "-" {
			want = strings.Split(f[2], " || ")
		}
		parse := func() sqlast.Stmt {
			s, err := sqlast.Parse(d, f[1])
			if err != nil {
				t.Fatalf("locks.txt:%d: %v", ln+1, err)
			}
			return s
		}
		if got := len(lockWeakenings(d, parse())); got != len(want) {
			t.Errorf("locks.txt:%d: %d weakenings, want %d", ln+1, got, len(want))
			continue
		}
		for j := range want {
			s := parse() // each applies to a fresh parse
			lockWeakenings(d, s)[j]()
			if got := sqlast.Format(d, s); got != want[j] {
				t.Errorf("locks.txt:%d: weakening %d gives %q, want %q", ln+1, j+1, got, want[j])
			}
		}
		n++
	}
	if n < 9 {
		t.Errorf("only %d statements read", n)
	}
}

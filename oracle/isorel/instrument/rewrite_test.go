package instrument

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// rewriteAll runs the input file through a fresh rewriter for dialect d and
// renders what it would send, one block per input line.
func rewriteAll(t *testing.T, d sqlast.Dialect, input string) string {
	t.Helper()
	rw := NewRewriter(d)
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(input))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, ok := strings.CutPrefix(line, "setup "); ok {
			out, info := rw.Setup(s)
			fmt.Fprintf(&b, "setup> %s\n  %s\n  %s\n", s, out, describe(info))
			continue
		}
		sent, info := rw.Statement(line, 3)
		fmt.Fprintf(&b, "> %s\n", line)
		for _, s := range sent {
			fmt.Fprintf(&b, "  [%s] %s\n", s.Role, s.SQL)
			// What the rewriter makes must stay inside the subset.
			if _, err := sqlast.Parse(d, s.SQL); info.Instrumented && err != nil {
				t.Errorf("sent statement does not parse: %s: %v", s.SQL, err)
			}
		}
		fmt.Fprintf(&b, "  %s\n", describe(info))
	}
	return b.String()
}

func describe(i Info) string {
	var f []string
	f = append(f, "kind="+i.Kind)
	if !i.Instrumented {
		f = append(f, "uninstrumented")
	}
	if i.Aggregate {
		f = append(f, "aggregate")
	}
	if i.Locking {
		f = append(f, "locking")
	}
	if i.PreDeletes {
		f = append(f, "pre-deletes")
	}
	if len(i.Inserted) > 0 {
		f = append(f, "inserted="+strings.Join(i.Inserted, ","))
	}
	if i.Note != "" {
		f = append(f, "note="+i.Note)
	}
	return strings.Join(f, " ")
}

func TestRewriteGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "statements.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []sqlast.Dialect{sqlast.MySQL, sqlast.Postgres, sqlast.SQLite} {
		t.Run(d.String(), func(t *testing.T) {
			got := rewriteAll(t, d, string(in))
			path := filepath.Join("testdata", "statements."+d.String()+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("rewriting differs from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

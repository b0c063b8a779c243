package instrument

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// FuzzStatement: any input is either rewritten into statements that parse
// in the dialect, or sent as written and reported uninstrumented; never a panic.
func FuzzStatement(f *testing.F) {
	in, err := os.ReadFile(filepath.Join("testdata", "statements.sql"))
	if err != nil {
		f.Fatal(err)
	}
	var setup []string
	sc := bufio.NewScanner(strings.NewReader(string(in)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if s, ok := strings.CutPrefix(line, "setup "); ok {
			setup = append(setup, s)
		} else if line != "" && !strings.HasPrefix(line, "#") {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, info := range goldenTargets {
			d := info.Dialect
			rw := NewRewriter(info)
			for _, s := range setup {
				rw.Setup(s)
			}
			sent, info := rw.Statement(sql, 5)
			if !info.Instrumented {
				if len(sent) != 1 || sent[0].SQL != rw.AsWritten(sql) {
					t.Fatalf("%s: uninstrumented %q sent as %v", d, sql, sent)
				}
				continue
			}
			for _, s := range sent {
				if s.Role == RolePrepare {
					continue // SET @v = '': outside the subset by design
				}
				if _, err := sqlast.Parse(d, s.SQL); err != nil {
					t.Fatalf("%s: %q rewritten into %q, which does not parse: %v", d, sql, s.SQL, err)
				}
			}
		}
	})
}

package reduce

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestSingleTable: each write across tables offers its single-table forms
// (testdata/single_table.txt), each applied to a fresh parse.
func TestSingleTable(t *testing.T) {
	f, err := os.Open("testdata/single_table.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 {
			t.Fatalf("single_table.txt:%d: want dialect | statement | forms", ln)
		}
		d, err := sqlast.ParseDialect(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if parts[2] != "-" {
			want = strings.Split(parts[2], " || ")
		}
		parse := func() sqlast.Stmt {
			s, err := sqlast.Parse(d, parts[1])
			if err != nil {
				t.Fatalf("single_table.txt:%d: %v", ln, err)
			}
			return s
		}
		var got []string
		for j := range singleTableSimplifications(parse()) {
			s := parse()
			singleTableSimplifications(s)[j]()
			out := sqlast.Format(d, s)
			if _, err := sqlast.Parse(d, out); err != nil {
				t.Errorf("single_table.txt:%d: %q does not parse: %v", ln, out, err)
			}
			got = append(got, out)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("single_table.txt:%d: got\n%s\nwant\n%s", ln, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		n++
	}
	if n < 5 {
		t.Errorf("only %d cases", n)
	}
}

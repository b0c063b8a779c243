package reduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// TestForeignKeySimplifications checks each foreign-key simplification
// of testdata/foreign_keys.txt.
func TestForeignKeySimplifications(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "foreign_keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ln, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sql, wantText, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("foreign_keys.txt:%d: want statement | simplifications", ln+1)
		}
		var want []string
		if wantText != "-" {
			want = strings.Split(wantText, " || ")
		}
		parse := func() sqlast.Stmt {
			s, err := sqlast.Parse(sqlast.Postgres, sql)
			if err != nil {
				t.Fatalf("foreign_keys.txt:%d: %v", ln+1, err)
			}
			return s
		}
		if count := len(foreignKeySimplifications(parse())); count != len(want) {
			t.Errorf("foreign_keys.txt:%d: %d simplifications, want %d", ln+1, count, len(want))
			continue
		}
		for j := range want {
			s := parse() // each applies to a fresh parse
			foreignKeySimplifications(s)[j]()
			if got := sqlast.Format(sqlast.Postgres, s); got != want[j] {
				t.Errorf("foreign_keys.txt:%d: simplification %d gives %q, want %q", ln+1, j+1, got, want[j])
			}
		}
		n++
	}
	if n < 4 {
		t.Errorf("only %d statements read", n)
	}
}

// TestDropForeignKeyPass: the pass's candidates walk the setup's keys and
// end (noMore) after the last.
func TestDropForeignKeyPass(t *testing.T) {
	c := &testcase.Case{Setup: []string{
		"CREATE TABLE p (id INT PRIMARY KEY)",
		"CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)",
	}, Steps: []testcase.Step{{Conn: 1, SQL: "DELETE FROM p"}}}
	r := &reducer{opt: Options{Dialect: sqlast.Postgres}}
	want := []string{
		"CREATE TABLE c (id INT PRIMARY KEY, pid INT)",
		"CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
	}
	for i, w := range want {
		d := dropForeignKey(r, c, i)
		if d == nil || d == noMore || d.Setup[1] != w {
			t.Fatalf("candidate %d = %v, want setup %q", i, d, w)
		}
	}
	if dropForeignKey(r, c, len(want)) != noMore {
		t.Error("a candidate past the last foreign key")
	}
}

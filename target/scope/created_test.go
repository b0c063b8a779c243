package scope

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestCreated reads testdata/created.txt: an optional dialect and colon,
// a statement, a tab, an arrow and the names it creates. A statement may
// span lines; the line with the arrow ends it.
func TestCreated(t *testing.T) {
	f, err := os.Open("testdata/created.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var stmt []string
	cases := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# ") {
			continue
		}
		sql, want, ok := strings.Cut(line, "\t→")
		stmt = append(stmt, sql)
		if !ok {
			continue
		}
		full := strings.Join(stmt, "\n")
		stmt = nil
		dialects := []sqlast.Dialect{sqlast.MySQL, sqlast.Postgres, sqlast.SQLite}
		if name, rest, ok := strings.Cut(full, ": "); ok {
			if d, err := sqlast.ParseDialect(name); err == nil && d != sqlast.DialectNone {
				dialects, full = []sqlast.Dialect{d}, rest
			}
		}
		var names []string
		for _, n := range strings.Split(strings.TrimSpace(want), ",") {
			if n != "" {
				names = append(names, n)
			}
		}
		for _, d := range dialects {
			if got := Created(d, []string{full}); !reflect.DeepEqual(got, names) {
				t.Errorf("Created(%v, %q) = %q, want %q", d, full, got, names)
			}
		}
		cases++
	}
	if cases < 30 {
		t.Fatalf("read %d cases from testdata/created.txt", cases)
	}
}

// FuzzCreated: any input, however malformed, gives names without a panic,
// and a name is never empty.
func FuzzCreated(f *testing.F) {
	for _, s := range []string{"CREATE TABLE t (a INT)", "RENAME TABLE a TO b", "ALTER TABLE t RENAME TO `u", "CREATE TABLE \"", "CREATE /*", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []sqlast.Dialect{sqlast.MySQL, sqlast.Postgres, sqlast.SQLite} {
			for _, n := range Created(d, []string{sql}) {
				if n == "" {
					t.Fatalf("Created(%v, %q) has an empty name", d, sql)
				}
			}
		}
	})
}

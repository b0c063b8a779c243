package target

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestCreatedTables reads testdata/created.txt: a statement, a tab, an
// arrow and the names it creates. A statement may span lines; the line
// with the arrow ends it.
func TestCreatedTables(t *testing.T) {
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
		var names []string
		for _, n := range strings.Split(strings.TrimSpace(want), ",") {
			if n != "" {
				names = append(names, n)
			}
		}
		if got := CreatedTables(full); !reflect.DeepEqual(got, names) {
			t.Errorf("CreatedTables(%q) = %q, want %q", full, got, names)
		}
		cases++
	}
	if cases < 30 {
		t.Fatalf("read %d cases from testdata/created.txt", cases)
	}
}

// FuzzCreatedTables: any input, however malformed, gives names without a
// panic, and a name is never empty.
func FuzzCreatedTables(f *testing.F) {
	for _, s := range []string{"CREATE TABLE t (a INT)", "RENAME TABLE a TO b", "ALTER TABLE t RENAME TO `u", "CREATE TABLE \"", "CREATE /*", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, n := range CreatedTables(sql) {
			if n == "" {
				t.Fatalf("CreatedTables(%q) has an empty name", sql)
			}
		}
	})
}

package sqlast

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type parseCase struct {
	line    int
	d       Dialect
	in, out string
}

// readCases reads a tab-separated testdata file: dialect, input, expected.
func readCases(t testing.TB, name string) []parseCase {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []parseCase
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("%s:%d: want 3 tab-separated fields, got %d", name, i+1, len(f))
		}
		d, err := ParseDialect(f[0])
		if err != nil {
			t.Fatalf("%s:%d: %v", name, i+1, err)
		}
		out = append(out, parseCase{line: i + 1, d: d, in: strings.ReplaceAll(f[1], `\n`, "\n"), out: f[2]})
	}
	return out
}

func TestParse(t *testing.T) {
	for _, c := range readCases(t, "parse_ok.txt") {
		s, err := Parse(c.d, c.in)
		if err != nil {
			t.Errorf("parse_ok.txt:%d: Parse(%s, %q): %v", c.line, c.d, c.in, err)
			continue
		}
		got := Format(c.d, s)
		if got != c.out {
			t.Errorf("parse_ok.txt:%d: Format(Parse(%q))\n got: %s\nwant: %s", c.line, c.in, got, c.out)
			continue
		}
		s2, err := Parse(c.d, got)
		if err != nil {
			t.Errorf("parse_ok.txt:%d: reparse %q: %v", c.line, got, err)
		} else if again := Format(c.d, s2); again != got {
			t.Errorf("parse_ok.txt:%d: not stable: %q then %q", c.line, got, again)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range readCases(t, "parse_err.txt") {
		s, err := Parse(c.d, c.in)
		if err == nil {
			t.Errorf("parse_err.txt:%d: Parse(%s, %q) = %s, want error", c.line, c.d, c.in, Format(c.d, s))
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("parse_err.txt:%d: error %v is not a *ParseError", c.line, err)
		}
		if !strings.Contains(err.Error(), c.out) {
			t.Errorf("parse_err.txt:%d: Parse(%q)\n  error: %v\n   want: %s", c.line, c.in, err, c.out)
		}
	}
}

func TestParseExpr(t *testing.T) {
	tests := []struct {
		d    Dialect
		in   string
		want Expr
	}{
		{Postgres, "a + 1", &Binary{Op: "+", L: col("a"), R: num("1")}},
		{MySQL, "-1", num("-1")},
		{MySQL, "- (1)", &Unary{Op: "-", X: num("1")}},
		{Postgres, "EXCLUDED.c", &Excluded{Column: "c"}},
		{MySQL, "VALUES(c)", &Excluded{Column: "c"}},
		{SQLite, "t.c IS NOT NULL", &IsNull{X: qcol("t", "c"), Not: true}},
		{Postgres, "NOT EXISTS (SELECT 1)", &Exists{Sub: sel(items(num("1")), nil, nil), Not: true}},
		{Postgres, "x NOT BETWEEN 1 AND 2", &Between{X: col("x"), Lo: num("1"), Hi: num("2"), Not: true}},
		{SQLite, "'a''b'", str("a'b")},
		{MySQL, `'a\\b'`, str(`a\b`)},
		{Postgres, `'a\\b'`, str(`a\\b`)},
		{Postgres, "true", true_},
	}
	for _, tt := range tests {
		got, err := ParseExpr(tt.d, tt.in)
		if err != nil {
			t.Errorf("ParseExpr(%s, %q): %v", tt.d, tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseExpr(%s, %q) = %s, want %s", tt.d, tt.in, FormatExpr(tt.d, got), FormatExpr(tt.d, tt.want))
		}
	}
	if _, err := ParseExpr(Postgres, "a b"); err == nil {
		t.Error("ParseExpr accepted trailing tokens")
	}
}

func TestParseDeepNesting(t *testing.T) {
	in := "SELECT " + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000)
	_, err := Parse(Postgres, in)
	if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("got %v, want a nesting error", err)
	}
	in = "SELECT " + strings.Repeat("NOT ", 10000) + "a"
	if _, err = Parse(Postgres, in); err == nil {
		t.Fatal("deep NOT chain accepted")
	}
	in = "SELECT " + strings.Repeat("-", 10000) + "a"
	if _, err = Parse(MySQL, in); err == nil {
		t.Fatal("deep minus chain accepted")
	}
}

func TestWalk(t *testing.T) {
	s, err := Parse(Postgres, "SELECT a, (SELECT MAX(b) FROM u) FROM t JOIN v ON t.x = v.x WHERE c IN (1, 2) AND NOT EXISTS (SELECT 1 FROM w) ORDER BY d")
	if err != nil {
		t.Fatal(err)
	}
	var tables, cols []string
	Walk(s, func(n any) bool {
		switch n := n.(type) {
		case *Table:
			tables = append(tables, n.Name)
		case *ColumnRef:
			cols = append(cols, n.Column)
		}
		return true
	})
	if want := []string{"u", "t", "v", "w"}; !reflect.DeepEqual(tables, want) {
		t.Errorf("tables = %v, want %v", tables, want)
	}
	if want := []string{"a", "b", "x", "x", "c", "d"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("columns = %v, want %v", cols, want)
	}
	// Returning false prunes: no table inside a subquery is visited.
	tables = nil
	Walk(s, func(n any) bool {
		switch n := n.(type) {
		case *ScalarSubquery, *Exists:
			return false
		case *Table:
			tables = append(tables, n.Name)
		}
		return true
	})
	if want := []string{"t", "v"}; !reflect.DeepEqual(tables, want) {
		t.Errorf("pruned tables = %v, want %v", tables, want)
	}
	// Typed nil pointers are skipped rather than passed to fn.
	Walk(&Delete{Table: "t", Where: (*Binary)(nil)}, func(n any) bool {
		if b, ok := n.(*Binary); ok && b == nil {
			t.Error("fn called with a nil *Binary")
		}
		return true
	})
}

// FuzzParse checks that Parse never panics, that whatever it accepts
// formats to a fixed point: Format(Parse(Format(Parse(x)))) == Format(Parse(x)),
// and that its Clone is an equal copy sharing nothing.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"parse_ok.txt", "parse_err.txt"} {
		for _, c := range readCases(f, name) {
			f.Add(uint8(c.d), c.in)
		}
	}
	for _, d := range dialects {
		for _, c := range formatCases() {
			f.Add(uint8(d), Format(d, c.stmt))
		}
	}
	f.Fuzz(func(t *testing.T, dn uint8, sql string) {
		d := dialects[int(dn)%len(dialects)]
		s, err := Parse(d, sql)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Offset < 0 || pe.Offset > len(sql) {
				t.Fatalf("error offset %d outside input of %d bytes", pe.Offset, len(sql))
			}
			return
		}
		checkClone(t, d, s)
		once := Format(d, s)
		if strings.Contains(once, "--") && !strings.ContainsAny(once, `'"`+"`") {
			t.Fatalf("formatted %q contains --", once)
		}
		s2, err := Parse(d, once)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its format %q does not parse: %v", sql, once, err)
		}
		if twice := Format(d, s2); twice != once {
			t.Fatalf("not stable for %q:\n once: %s\ntwice: %s", sql, once, twice)
		}
	})
}

package sqlast

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var dialects = []Dialect{MySQL, Postgres, SQLite}

// renderGolden renders every format case as "-- name\nSQL;\n\n".
func renderGolden(d Dialect) string {
	var b strings.Builder
	for _, c := range formatCases() {
		fmt.Fprintf(&b, "-- %s\n%s;\n\n", c.name, Format(d, c.stmt))
	}
	return b.String()
}

func TestFormatGolden(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			path := filepath.Join("testdata", "format_"+d.String()+".golden")
			got := renderGolden(d)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				gotBlocks, wantBlocks := strings.Split(got, "\n\n"), strings.Split(string(want), "\n\n")
				for i := range min(len(gotBlocks), len(wantBlocks)) {
					if gotBlocks[i] != wantBlocks[i] {
						t.Fatalf("golden mismatch (go test -update rewrites):\ngot:  %s\nwant: %s", gotBlocks[i], wantBlocks[i])
					}
				}
				t.Fatalf("golden mismatch: %d blocks, want %d", len(gotBlocks), len(wantBlocks))
			}
		})
	}
}

// TestRoundTrip checks Format(Parse(Format(s))) == Format(s) for every
// hand-written AST, and that Parse returns the very same AST where the
// dialect's spelling is lossless.
func TestRoundTrip(t *testing.T) {
	// Spellings that lose information by design, per dialect.
	lossy := map[Dialect]map[string]bool{
		MySQL: {
			"upsert-do-nothing":           true, // conflict target dropped
			"upsert-do-nothing-no-target": true, // becomes c = c on the first column
			"upsert-update":               true, // ON DUPLICATE KEY has no target
			"not-exists-normalized":       true, // NOT (EXISTS q) reads back as NOT EXISTS q
			"create-table-foreign-keys":   true, // a column's REFERENCES is written table-level; no deferral
		},
		Postgres: {"not-exists-normalized": true},
		SQLite:   {"not-exists-normalized": true},
	}
	for _, d := range dialects {
		for _, c := range formatCases() {
			t.Run(d.String()+"/"+c.name, func(t *testing.T) {
				s1 := Format(d, c.stmt)
				p, err := Parse(d, s1)
				if err != nil {
					t.Fatalf("Parse(%q): %v", s1, err)
				}
				if s2 := Format(d, p); s2 != s1 {
					t.Fatalf("not stable:\n first: %s\nsecond: %s", s1, s2)
				}
				if lossy[d][c.name] {
					return
				}
				want := normalize(c.stmt)
				if !reflect.DeepEqual(p, want) {
					t.Errorf("Parse(Format(ast)) differs from ast for %s", s1)
				}
			})
		}
	}
}

// normalize rewrites a hand-written AST into the form Parse produces for the
// same text: a unary minus applied to a number literal is the negative literal,
// and unquoted upper-case function names come back upper case.
func normalize(s Stmt) Stmt {
	Walk(s, func(n any) bool {
		if f, ok := n.(*Func); ok {
			f.Name = strings.ToUpper(f.Name)
		}
		return true
	})
	return fixNegatives(s)
}

// fixNegatives replaces Unary{-, number} by the negative literal wherever
// it occurs in the formatCases ASTs.
func fixNegatives(s Stmt) Stmt {
	var fix func(e Expr) Expr
	fix = func(e Expr) Expr {
		switch e := e.(type) {
		case *Unary:
			if l, ok := e.X.(*Literal); ok && e.Op == "-" && !strings.HasPrefix(l.Text, "-") && (l.Kind == LitInt || l.Kind == LitFloat) {
				return &Literal{Kind: l.Kind, Text: "-" + l.Text}
			}
			e.X = fix(e.X)
		case *Binary:
			e.L, e.R = fix(e.L), fix(e.R)
		case *Between:
			e.X, e.Lo, e.Hi = fix(e.X), fix(e.Lo), fix(e.Hi)
		case *Func:
			for i := range e.Args {
				e.Args[i] = fix(e.Args[i])
			}
		}
		return e
	}
	switch s := s.(type) {
	case *CreateTable:
		for i := range s.Columns {
			if s.Columns[i].Default != nil {
				s.Columns[i].Default = fix(s.Columns[i].Default)
			}
		}
	case *SelectStmt:
		Walk(s, func(n any) bool {
			if sel, ok := n.(*Select); ok {
				for i := range sel.Items {
					if sel.Items[i].Expr != nil {
						sel.Items[i].Expr = fix(sel.Items[i].Expr)
					}
				}
			}
			return true
		})
	}
	return s
}

func TestFormatNeverAdjacentMinus(t *testing.T) {
	exprs := []Expr{
		&Unary{Op: "-", X: num("-1")},
		&Unary{Op: "-", X: &Unary{Op: "-", X: num("1")}},
		&Unary{Op: "-", X: &Unary{Op: "-", X: col("a")}},
		bin("-", col("a"), num("-1")),
		bin("-", col("a"), &Unary{Op: "-", X: col("b")}),
		bin("-", num("-1"), num("-1")),
		&Unary{Op: "-", X: bin("*", num("-2"), col("a"))},
		&Unary{Op: "-", X: &Func{Name: "abs", Args: []Expr{num("-1")}}},
	}
	for _, d := range dialects {
		for _, e := range exprs {
			s := FormatExpr(d, e)
			if strings.Contains(s, "--") {
				t.Errorf("%s: %q contains --", d, s)
			}
			p, err := ParseExpr(d, s)
			if err != nil {
				t.Fatalf("%s: ParseExpr(%q): %v", d, s, err)
			}
			if s2 := FormatExpr(d, p); s2 != s {
				t.Errorf("%s: %q reformats as %q", d, s, s2)
			}
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	tests := []struct {
		d        Dialect
		in, want string
	}{
		{MySQL, "t0", "t0"},
		{Postgres, "c_1", "c_1"},
		{MySQL, "T0", "`T0`"},
		{Postgres, "T0", `"T0"`},
		{SQLite, "order", `"order"`},
		{MySQL, "order", "`order`"},
		{MySQL, "a`b", "`a``b`"},
		{Postgres, `a"b`, `"a""b"`},
		{SQLite, "1a", `"1a"`},
		{Postgres, "excluded", `"excluded"`},
	}
	for _, tt := range tests {
		if got := QuoteIdent(tt.d, tt.in); got != tt.want {
			t.Errorf("QuoteIdent(%s, %q) = %s, want %s", tt.d, tt.in, got, tt.want)
		}
	}
}

func TestSupports(t *testing.T) {
	tests := []struct {
		name string
		f    func(Dialect) bool
		want [3]bool // MySQL, Postgres, SQLite
	}{
		{"bool", Dialect.SupportsBool, [3]bool{true, true, false}},
		{"locking", Dialect.SupportsLocking, [3]bool{true, true, false}},
		{"replace", Dialect.SupportsReplace, [3]bool{true, false, false}},
		{"onconflict", Dialect.SupportsOnConflict, [3]bool{false, true, true}},
		{"nestedsetop", Dialect.SupportsNestedSetOp, [3]bool{true, true, false}},
	}
	for _, tt := range tests {
		for i, d := range dialects {
			if got := tt.f(d); got != tt.want[i] {
				t.Errorf("%s on %s = %v, want %v", tt.name, d, got, tt.want[i])
			}
		}
	}
}

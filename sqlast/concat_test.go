package sqlast

import "testing"

func TestConcat(t *testing.T) {
	e := &Concat{L: &Concat{L: &ColumnRef{Column: "w"}, R: &Literal{Kind: LitString, Text: ",T1"}}, R: &Binary{Op: "+", L: &ColumnRef{Column: "a"}, R: &Literal{Kind: LitInt, Text: "1"}}}
	tests := []struct {
		d    Dialect
		want string
	}{
		{MySQL, "CONCAT(CONCAT(w, ',T1'), a + 1)"},
		{Postgres, "((w || ',T1') || (a + 1))"},
		{SQLite, "((w || ',T1') || (a + 1))"},
	}
	for _, tt := range tests {
		got := FormatExpr(tt.d, e)
		if got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.d, got, tt.want)
		}
		back, err := ParseExpr(tt.d, got)
		if err != nil {
			t.Fatalf("%s: %s does not parse: %v", tt.d, got, err)
		}
		if again := FormatExpr(tt.d, back); again != got {
			t.Errorf("%s: print → parse → print gave %s, want %s", tt.d, again, got)
		}
	}
	// On the MySQL family || is OR, outside the subset: it must not parse as concatenation.
	if _, err := ParseExpr(MySQL, "(a || b)"); err == nil {
		t.Error("MySQL accepted ||")
	}
}

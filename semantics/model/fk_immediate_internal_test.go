package model

import (
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestMayEqual: values that print differently may be one key only where
// the column's type compares by more than the printed text.
func TestMayEqual(t *testing.T) {
	for _, c := range []struct {
		typ  sqlast.Type
		a, b string
		want bool
	}{
		{sqlast.TypeInt, "1", "2", false},
		{sqlast.TypeDecimal, "1.50", "1.51", false},
		{sqlast.TypeDouble, "1", "1.0", true},
		{sqlast.TypeDouble, "1", "1.5", false},
		{sqlast.TypeVarchar, "ab", "AB", true},
		{sqlast.TypeVarchar, "ab", "ab  ", true},
		{sqlast.TypeVarchar, "ab", "ac", false},
		{sqlast.TypeText, "e", "é", true},
		{sqlast.TypeVarchar, "a\x01", "a", true},
	} {
		if got := mayEqual(c.typ, c.a, c.b); got != c.want {
			t.Errorf("mayEqual(%v, %q, %q) = %v, want %v", c.typ, c.a, c.b, got, c.want)
		}
	}
}

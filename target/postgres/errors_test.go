package postgres

import (
	"testing"

	"github.com/txlab/txlab/target"
)

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		code string
		want target.ErrorClass
	}{
		{"40P01", target.ClassDeadlock},
		{"40001", target.ClassSerialization},
		{"55P03", target.ClassLockTimeout},
		{"23505", target.ClassDuplicateKey},
		{"23503", target.ClassConstraint},
		{"42601", target.ClassSyntax},      // syntax_error
		{"42501", target.ClassPrivilege},   // insufficient_privilege: not an invalid statement
		{"42P01", target.ClassNoSuchTable}, // undefined_table
		{"22012", target.ClassData},        // division_by_zero
		{"57P01", target.ClassConnection},
		{"XX000", target.ClassOther},
	} {
		if got := classOf(tc.code); got != tc.want {
			t.Errorf("classOf(%s) = %s, want %s", tc.code, got, tc.want)
		}
	}
}

package testcase

import (
	"strings"
	"testing"
)

// TestLimits: a case over the size or statement limit is refused with the
// limit named, not parsed (and later judged) at any cost.
func TestLimits(t *testing.T) {
	big := "CREATE TABLE t (v INT);\n1> SELECT '" + strings.Repeat("x", MaxBytes) + "';\n"
	if _, err := Parse("big.txn", strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("a case of %d bytes: %v", len(big), err)
	}
	many := "CREATE TABLE t (v INT);\n" + strings.Repeat("1> SELECT 1;\n", MaxStatements)
	if _, err := Parse("many.txn", strings.NewReader(many)); err == nil || !strings.Contains(err.Error(), "more than 10000 statements") {
		t.Errorf("a case of %d statements: %v", MaxStatements+1, err)
	}
	ok := "CREATE TABLE t (v INT);\n" + strings.Repeat("1> SELECT 1;\n", MaxStatements-1)
	if _, err := Parse("ok.txn", strings.NewReader(ok)); err != nil {
		t.Errorf("a case at the limit: %v", err)
	}
}

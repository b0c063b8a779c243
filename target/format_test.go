package target

import (
	"math"
	"testing"
	"time"
)

func TestFormatValue(t *testing.T) {
	tests := []struct {
		in   any
		want Value
	}{
		{nil, NullValue},
		{int64(-42), Str("-42")},
		{uint64(math.MaxUint64), Str("18446744073709551615")},
		{0.1, Str("0.1")},
		{2.0, Str("2")},
		{1e21, Str("1e+21")},
		{float32(0.1), Str("0.1")},
		{[]byte("x y"), Str("x y")},
		{"", Str("")},
		{true, Str("1")},
		{time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC), Str("2024-02-03 04:05:06Z")},
	}
	for _, tc := range tests {
		if got := FormatValue(tc.in); got != tc.want {
			t.Errorf("FormatValue(%#v) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestReturnsRows(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"SELECT 1", true},
		{"  select * from t FOR UPDATE", true},
		{"(SELECT 1) UNION (SELECT 2)", true},
		{"WITH x AS (SELECT 1) SELECT * FROM x", true},
		{"VALUES (1)", true},
		{"SHOW default_transaction_isolation", true},
		{"INSERT INTO t VALUES (1) RETURNING id", true},
		{"DELETE FROM t returning *", true},
		{"INSERT INTO t VALUES (1)", false},
		{"UPDATE t SET returning_col = 1", false},
		{"BEGIN", false},
		{"COMMIT", false},
		{"SELECTED", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := ReturnsRows(tc.sql); got != tc.want {
			t.Errorf("ReturnsRows(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

// TestKeepsDefinitions: only statements that cannot change a table's
// definition let the executor reuse a setup's tables.
func TestKeepsDefinitions(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT * FROM t":                      true,
		"  (SELECT 1) UNION (SELECT 2)":        true,
		"insert into t values (1)":             true,
		"REPLACE INTO t VALUES (1)":            true,
		"UPDATE t SET v = 1":                   true,
		"DELETE FROM t":                        true,
		"WITH c AS (SELECT 1) SELECT * FROM c": true,
		"BEGIN":                                true,
		"START TRANSACTION":                    true,
		"COMMIT;":                              true,
		"ROLLBACK":                             true,
		"SAVEPOINT a":                          true,
		"LOCK TABLE t IN SHARE MODE NOWAIT":    true,
		"UNLOCK TABLES":                        true,
		"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED": true,
		"CREATE TABLE t2 (a INT)":                                false,
		"CREATE TEMPORARY TABLE t2 (a INT)":                      false,
		"ALTER TABLE t ADD COLUMN b INT":                         false,
		"DROP TABLE t":                                           false,
		"TRUNCATE t":                                             false,
		"CREATE INDEX i ON t (v)":                                false,
		"RENAME TABLE t TO u":                                    false,
		"":                                                       false,
	} {
		if got := KeepsDefinitions(sql); got != want {
			t.Errorf("KeepsDefinitions(%q) = %v, want %v", sql, got, want)
		}
	}
}

package executor

import "testing"

// TestRowStatement: only statements that cannot change a table's
// definition keep a reused setup valid.
func TestRowStatement(t *testing.T) {
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
		if got := rowStatement(sql); got != want {
			t.Errorf("rowStatement(%q) = %v, want %v", sql, got, want)
		}
	}
}

package model

import (
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestCrossTable: every write across tables is named by its feature, so
// that the engine stops on it rather than replaying it as the
// single-table write it is not; single-table writes and reads are not.
func TestCrossTable(t *testing.T) {
	for _, c := range []struct {
		d         sqlast.Dialect
		sql, want string
	}{
		{sqlast.MySQL, "UPDATE t0 JOIN t1 ON t0.a = t1.a SET t0.c = 1", "multi-table-update"},
		{sqlast.MySQL, "UPDATE t0, t1 SET t1.c = t0.c WHERE t0.a = t1.a", "multi-table-update"},
		{sqlast.MySQL, "DELETE t0 FROM t0 JOIN t1 ON t0.a = t1.a", "multi-table-delete"},
		{sqlast.Postgres, "UPDATE t0 SET c = t1.c FROM t1 WHERE t0.a = t1.a", "multi-table-update"},
		{sqlast.Postgres, "DELETE FROM t0 USING t1 WHERE t0.a = t1.a", "multi-table-delete"},
		{sqlast.Postgres, "MERGE INTO t0 USING t1 ON t0.a = t1.a WHEN MATCHED THEN DELETE", "merge"},
		{sqlast.Postgres, "WITH w AS (DELETE FROM t0 RETURNING a) SELECT * FROM w", "cte-write"},
		{sqlast.Postgres, "WITH w AS (SELECT a FROM t0) SELECT * FROM w", ""},
		{sqlast.Postgres, "UPDATE t0 SET c = 1 WHERE a IN (SELECT a FROM t1)", ""},
		{sqlast.MySQL, "DELETE FROM t0 WHERE a = 1", ""},
	} {
		st, err := sqlast.Parse(c.d, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := sqlast.CrossTable(st); got != c.want {
			t.Errorf("%s: %q, want %q", c.sql, got, c.want)
		}
	}
}

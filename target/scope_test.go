package target

import "testing"

func TestOutsideSchema(t *testing.T) {
	for _, tc := range []struct {
		sql, schema, want string
	}{
		{"DROP TABLE mysql.general_log", "txlab", "TABLE mysql.general_log"},
		{"drop table if exists `mysql`.`user`", "txlab", "exists `mysql`.`user`"},
		{"DELETE FROM mysql.user WHERE 1", "txlab", "FROM mysql.user"},
		{"INSERT INTO other.t VALUES (1)", "txlab", "INTO other.t"},
		{"UPDATE public.t SET a = 1", "txlab", "UPDATE public.t"},
		{"SELECT a INTO OUTFILE '/tmp/x' FROM other.t", "txlab", "FROM other.t"},
		{"USE mysql", "txlab", "USE mysql"},
		{"DROP DATABASE txlab2", "txlab", "DROP DATABASE txlab2"},
		{"ATTACH DATABASE 'x.db' AS x", "main", "ATTACH DATABASE 'x.db' AS x"},
		// Inside: txlab's own schema, SQLite's main and temp, column references,
		// reads, and names inside string literals.
		{"DROP TABLE txlab.t", "txlab", ""},
		{"DROP TABLE `TXLAB`.t", "txlab", ""},
		{"DELETE FROM main.t", "main", ""},
		{"CREATE TABLE temp.t (a INT)", "main", ""},
		{"UPDATE t SET t.a = 1 WHERE t.b IN (SELECT s.b FROM s)", "txlab", ""},
		{"SELECT * FROM information_schema.tables", "txlab", ""},
		{"INSERT INTO t VALUES ('FROM mysql.user')", "txlab", ""},
		{"CREATE TABLE t (a INT)", "txlab", ""},
	} {
		if got := OutsideSchema(tc.sql, tc.schema); got != tc.want {
			t.Errorf("OutsideSchema(%q, %q) = %q, want %q", tc.sql, tc.schema, got, tc.want)
		}
	}
}

package scope

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// TestDuckDB: DuckDB reads PostgreSQL's syntax, and its table functions
// that read files, other databases or SQL from a string are refused by
// name (DuckDB's own settings refuse the file access behind it); its
// statements that reach outside the file are refused as on the other
// DBMSs, and its cases' SQL passes.
func TestDuckDB(t *testing.T) {
	r := For(target.Info{DBMS: "duckdb", Dialect: sqlast.Postgres, Schema: "main"}, false)
	for _, q := range []string{
		"SELECT * FROM read_csv('/etc/passwd')",
		"SELECT * FROM read_csv_auto('/etc/passwd')",
		"SELECT * FROM read_parquet('x.parquet')",
		"SELECT * FROM read_json_auto('x.json')",
		"SELECT * FROM read_text('/etc/hostname')",
		"SELECT * FROM parquet_metadata('x')",
		"SELECT * FROM glob('/etc/*')",
		"SELECT * FROM sniff_csv('x')",
		"SELECT * FROM query('SELECT 1')",
		"SELECT * FROM query_table('t')",
		"SELECT * FROM sqlite_scan('x.db', 't')",
		"SELECT * FROM '/etc/passwd'",
		"SELECT (SELECT count(*) FROM read_blob('/etc/shadow'))",
		"ATTACH ':memory:' AS m",
		"DETACH m",
		"INSTALL httpfs",
		"LOAD httpfs",
		"COPY t TO 'x.csv'",
		"EXPORT DATABASE 'x'",
		"IMPORT DATABASE 'x'",
		"SET search_path = 'm'",
		"USE m",
		"RESET search_path",
		"PRAGMA database_list",
		"CALL pragma_version()",
		"CHECKPOINT",
		"SELECT * FROM t, 'x.csv'",
		"SELECT * FROM t JOIN read_csv('x') r ON true",
		"SELECT * FROM temp.main.t",
		"SELECT * FROM txlab.main.t",
	} {
		if err := Check(q, r); err == nil {
			t.Errorf("%s: passed", q)
		}
		if err := Check(q, Rules{Dialect: r.Dialect, Schema: r.Schema, DBMS: r.DBMS, Trust: true}); err == nil && !strings.HasPrefix(q, "PRAGMA") {
			t.Errorf("%s: passed with --trust-case", q)
		}
	}
	for _, q := range []string{
		"CREATE TABLE t (id INT PRIMARY KEY, v DOUBLE PRECISION)",
		"INSERT INTO t VALUES (1, 2.5) ON CONFLICT (id) DO UPDATE SET v = excluded.v",
		"SELECT read FROM t", "SELECT * FROM main.t WHERE v > 1 ORDER BY id LIMIT 2",
		"UPDATE t SET v = v + 1 WHERE id IN (SELECT id FROM t)",
		"BEGIN TRANSACTION", "COMMIT",
	} {
		if err := Check(q, r); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	// Elsewhere the names are no functions of note.
	pg := For(target.Info{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab"}, false)
	if err := Check("SELECT * FROM read_csv('x')", pg); err != nil && strings.Contains(err.Error(), "read_csv") {
		t.Errorf("on PostgreSQL: %v", err)
	}
}

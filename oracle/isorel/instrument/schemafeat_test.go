package instrument_test

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// TestSchemaFeatures: the rewrite keeps the schema features working. A
// sequence and partial or expression indexes run as written without a
// note; a table with a generated column gets its hidden columns after
// it, and INSERTs that name their columns are instrumented (one without a
// list is not, with a note); on the MySQL family an upsert on a table with
// a UNIQUE expression index is not instrumented.
func TestSchemaFeatures(t *testing.T) {
	type stmt struct {
		sql, note string // note: a substring of Info.Note, "" none
		out       string // a substring of the first statement sent
	}
	for _, tc := range []struct {
		info  target.Info
		setup []stmt
		steps []stmt
	}{
		{
			info: target.Info{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab", Returning: true},
			setup: []stmt{
				{sql: "CREATE SEQUENCE t0_seq START WITH 1000", out: "CREATE SEQUENCE t0_seq"},
				{sql: "CREATE TABLE t0 (c0 INT NOT NULL PRIMARY KEY, c1 INT, g0 INT GENERATED ALWAYS AS (c1 + 1) STORED)",
					out: "g0 INT GENERATED ALWAYS AS (c1 + 1) STORED, txlab_rowid TEXT, txlab_wlist TEXT)"},
				{sql: "CREATE UNIQUE INDEX t0_p0 ON t0 (c1) WHERE c1 > 5", out: "WHERE c1 > 5"},
				{sql: "CREATE INDEX t0_e1 ON t0 ((c1 + 1))", out: "((c1 + 1))"},
				{sql: "INSERT INTO t0 (c0, c1) VALUES (1, 1)", out: "(c0, c1, txlab_rowid, txlab_wlist)"},
			},
			steps: []stmt{
				{sql: "INSERT INTO t0 (c0, c1) VALUES (NEXTVAL('t0_seq'), 2)", out: "VALUES (NEXTVAL('t0_seq'), 2, "},
				{sql: "INSERT INTO t0 VALUES (3, 3)", note: "generated columns"},
				{sql: "UPDATE t0 SET c1 = 4 WHERE g0 = 3", out: "txlab_wlist"},
				{sql: "INSERT INTO t0 (c0, c1) VALUES (5, 5) ON CONFLICT (c0) DO UPDATE SET c1 = EXCLUDED.c1", out: "ON CONFLICT (c0)"},
			},
		},
		{
			info: target.Info{DBMS: "tidb", Dialect: sqlast.MySQL, Schema: "txlab"},
			setup: []stmt{
				{sql: "CREATE TABLE t0 (c0 INT NOT NULL PRIMARY KEY AUTO_INCREMENT, c1 VARCHAR(20), g0 VARCHAR(20) AS (LOWER(c1)) VIRTUAL)",
					out: "AS (LOWER(c1)) VIRTUAL, txlab_rowid TEXT, txlab_wlist TEXT)"},
				{sql: "CREATE UNIQUE INDEX t0_e0 ON t0 ((UPPER(c1)))", out: "((UPPER(c1)))"},
			},
			steps: []stmt{
				{sql: "INSERT INTO t0 (c1) VALUES ('a')", out: "(c1, txlab_rowid, txlab_wlist)"},
				{sql: "INSERT INTO t0 (c0, c1) VALUES (1, 'a') ON DUPLICATE KEY UPDATE c1 = VALUES(c1)", note: "UNIQUE expression index"},
				{sql: "REPLACE INTO t0 (c0, c1) VALUES (1, 'b')", note: "UNIQUE expression index"},
			},
		},
	} {
		t.Run(tc.info.DBMS, func(t *testing.T) {
			rw := instrument.NewRewriter(tc.info)
			check := func(s stmt, out string, info instrument.Info) {
				t.Helper()
				switch {
				case s.note == "" && info.Note != "" && !strings.Contains(info.Note, "not recorded"):
					t.Errorf("%s: note %q", s.sql, info.Note)
				case s.note != "" && !strings.Contains(info.Note, s.note):
					t.Errorf("%s: note %q, want one with %q", s.sql, info.Note, s.note)
				case !strings.Contains(out, s.out):
					t.Errorf("%s: sent %q, want it to contain %q", s.sql, out, s.out)
				}
			}
			for _, s := range tc.setup {
				out, info := rw.Setup(s.sql)
				check(s, out, info)
			}
			for _, s := range tc.steps {
				sent, info := rw.Statement(s.sql, 1)
				out := ""
				for _, x := range sent {
					out += x.SQL + "\n"
				}
				check(s, out, info)
			}
		})
	}
}

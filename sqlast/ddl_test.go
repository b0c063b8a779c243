package sqlast

import (
	"fmt"
	"strings"
	"testing"
)

// describeDef renders what ReadCreateTable read, as in testdata/ddl.txt.
func describeDef(def *TableDef) string {
	join := func(sets [][]string) string {
		parts := make([]string, len(sets))
		for i, s := range sets {
			parts[i] = strings.Join(s, ",")
		}
		return strings.Join(parts, ";")
	}
	out := def.Name + " cols=" + strings.Join(def.Columns, ",")
	if def.PrimaryKey != nil {
		out += " pk=" + strings.Join(def.PrimaryKey, ",")
	}
	if len(def.Uniques) > 0 {
		out += " uniques=" + join(def.Uniques)
	}
	if len(def.Indexes) > 0 {
		out += " indexes=" + join(def.Indexes)
	}
	if def.Temporary {
		out += " temporary"
	}
	if len(def.References) > 0 {
		out += " references=" + strings.Join(def.References, ",")
	}
	if len(def.Generated) > 0 {
		out += " generated=" + strings.Join(def.Generated, ",")
	}
	if len(def.Acting) > 0 {
		out += " acting=" + strings.Join(def.Acting, ",")
	}
	if len(def.ActingOnUpdate) > 0 {
		out += " acting-on-update=" + strings.Join(def.ActingOnUpdate, ",")
	}
	return out
}

func TestReadCreateTable(t *testing.T) {
	for _, c := range readCases(t, "ddl.txt") {
		sql := c.in
		def, err := ReadCreateTable(c.d, sql)
		got := "error"
		if err == nil {
			got = describeDef(def)
			if sql[def.BodyEnd] != ')' {
				t.Errorf("%s: BodyEnd %d is at %q, not ')'", sql, def.BodyEnd, sql[def.BodyEnd:])
			}
			if c := sql[def.ColumnsEnd]; c != ',' && c != ')' || def.ColumnsEnd > def.BodyEnd {
				t.Errorf("%s: ColumnsEnd %d is at %q", sql, def.ColumnsEnd, sql[def.ColumnsEnd:])
			}
		}
		if got != c.out {
			t.Errorf("ddl.txt:%d: %s:\n got %s (%v)\nwant %s", c.line, sql, got, err, c.out)
		}
	}
}

// FuzzReadCreateTable: whatever it accepts, adding a column at BodyEnd
// reads back as the same table with one more column.
func FuzzReadCreateTable(f *testing.F) {
	f.Add("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	f.Add("CREATE TABLE `t1` (`id` int(11) NOT NULL AUTO_INCREMENT, `b` blob, PRIMARY KEY (`id`), UNIQUE KEY `ub` (`b`(10))) ENGINE=InnoDB DEFAULT CHARSET=latin1")
	f.Add("create table t4 (a int, key(a)) PARTITION BY LIST (a)(partition p0 values in (0,1))")
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []Dialect{MySQL, Postgres, SQLite} {
			def, err := ReadCreateTable(d, sql)
			if err != nil {
				continue
			}
			if def.BodyEnd < 0 || def.BodyEnd >= len(sql) || sql[def.BodyEnd] != ')' {
				t.Fatalf("%s: %q: BodyEnd %d is not a ')'", d, sql, def.BodyEnd)
			}
			if def.ColumnsEnd <= 0 || def.ColumnsEnd > def.BodyEnd {
				t.Fatalf("%s: %q: ColumnsEnd %d outside the body", d, sql, def.ColumnsEnd)
			}
			more := sql[:def.ColumnsEnd] + ", txlab_x TEXT" + sql[def.ColumnsEnd:]
			def2, err := ReadCreateTable(d, more)
			if err != nil {
				t.Fatalf("%s: %q read, %q not: %v", d, sql, more, err)
			}
			want := fmt.Sprint(append(def.Columns, "txlab_x"))
			if got := fmt.Sprint(def2.Columns); got != want {
				t.Fatalf("%s: %q: columns %s, want %s", d, more, got, want)
			}
		}
	})
}

func TestReadIndex(t *testing.T) {
	for _, c := range readCases(t, "index.txt") {
		idx, err := ReadIndex(c.d, c.in)
		got := "error"
		if err == nil {
			got = idx.Table + " cols=" + strings.Join(idx.Columns, ",")
			if idx.Unique {
				got += " unique"
			}
			if idx.Primary {
				got += " primary"
			}
		}
		if got != c.out {
			t.Errorf("index.txt:%d: %s:\n got %s (%v)\nwant %s", c.line, c.in, got, err, c.out)
		}
	}
}

func FuzzReadIndex(f *testing.F) {
	f.Add("CREATE UNIQUE INDEX i ON t (a, b DESC)")
	f.Add("ALTER TABLE t ADD INDEX t_index(a)")
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []Dialect{MySQL, Postgres, SQLite} {
			idx, err := ReadIndex(d, sql)
			if err == nil && idx.Table == "" {
				t.Fatalf("%s: %q: an index of no table", d, sql)
			}
		}
	})
}

func TestInsertTarget(t *testing.T) {
	for _, tc := range []struct {
		sql, table, rest string
		cols             bool
	}{
		{"INSERT INTO t1 SELECT * FROM t2", "t1", "SELECT * FROM t2", false},
		{"insert ignore into `db`.`t` values (1)", "t", "values (1)", false},
		{"REPLACE t (a) VALUES (1)", "t", "(a) VALUES (1)", true},
		{"INSERT INTO t (SELECT 1)", "t", "(SELECT 1)", false},
		{"INSERT OR REPLACE INTO t VALUES (1)", "t", "VALUES (1)", false},
		{"INSERT INTO t VALUES (0x32, 'aaa')", "t", "VALUES (0x32, 'aaa')", false},
	} {
		table, at, cols, err := InsertTarget(MySQL, tc.sql)
		if err != nil || table != tc.table || tc.sql[at:] != tc.rest || cols != tc.cols {
			t.Errorf("InsertTarget(%q) = %q, rest %q, columns %v, %v; want %q, %q, %v", tc.sql, table, tc.sql[at:], cols, err, tc.table, tc.rest, tc.cols)
		}
	}
	if _, _, _, err := InsertTarget(MySQL, "UPDATE t SET a = 1"); err == nil {
		t.Error("InsertTarget accepted an UPDATE")
	}
}

func FuzzInsertTarget(f *testing.F) {
	f.Add("INSERT INTO t1 SELECT * FROM t2")
	f.Add("REPLACE t (a) VALUES (1)")
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []Dialect{MySQL, Postgres, SQLite} {
			table, at, _, err := InsertTarget(d, sql)
			if err == nil && (table == "" || at < 0 || at > len(sql)) {
				t.Fatalf("%s: %q: table %q at %d", d, sql, table, at)
			}
		}
	})
}

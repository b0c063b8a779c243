package model

import (
	"fmt"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestParseSetup: the setup statements that add an index over columns are
// read, ALTER TABLE's form included; an added PRIMARY KEY is not one the
// model follows.
func TestParseSetup(t *testing.T) {
	for sql, want := range map[string]string{
		"CREATE UNIQUE INDEX i ON t (a, b)":          "t [a b] unique",
		"ALTER TABLE t ADD INDEX t_index(a)":         "t [a]",
		"ALTER TABLE t ADD UNIQUE KEY k (b)":         "t [b] unique",
		"ALTER TABLE t ADD CONSTRAINT c UNIQUE (b)":  "t [b] unique",
		"ALTER TABLE t ADD PRIMARY KEY (a)":          "none",
		"ALTER TABLE t ADD COLUMN d INT":             "none",
		"ALTER TABLE t ADD INDEX i (a), ADD KEY (b)": "none",
	} {
		got := "none"
		if st, _ := parseSetup(sqlast.MySQL, sql); st != nil {
			ci, ok := st.(*sqlast.CreateIndex)
			if !ok {
				t.Fatalf("parseSetup(%q) = %T, want a CREATE INDEX or nothing", sql, st)
			}
			got = fmt.Sprintf("%s %v", ci.Table, ci.Columns)
			if ci.Unique {
				got += " unique"
			}
		}
		if got != want {
			t.Errorf("parseSetup(%q) = %s, want %s", sql, got, want)
		}
	}
}

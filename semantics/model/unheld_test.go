package model

import (
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// TestUnheldType: a DECIMAL without its size, which the model's copy of a
// table would hold otherwise than the DBMS, makes it stop judging; sized
// types are kept as written, TEXT too, and SQLite is held.
func TestUnheldType(t *testing.T) {
	for _, c := range []struct {
		d      sqlast.Dialect
		create string
		want   string
	}{
		{sqlast.MySQL, "CREATE TABLE t (a DECIMAL(10,2), b VARCHAR(20), c INT)", ""},
		{sqlast.MySQL, "CREATE TABLE t (a DECIMAL(5, 2), b varchar( 10 ))", ""},
		{sqlast.MySQL, "CREATE TABLE t(c1 DECIMAL)", "DECIMAL"},
		{sqlast.MySQL, "CREATE TABLE t(c1 numeric NOT NULL)", "numeric"},
		{sqlast.MySQL, "CREATE TABLE t (a DECIMAL(12,4))", ""},
		{sqlast.MySQL, "CREATE TABLE t (a INT, b TEXT)", ""},
		{sqlast.Postgres, "CREATE TABLE t (name VARCHAR(255))", ""},
		{sqlast.SQLite, "CREATE TABLE t (a TEXT, b DECIMAL)", ""},
	} {
		if got := unheldType(c.d, c.create); got != c.want {
			t.Errorf("%s: %q, want %q", c.create, got, c.want)
		}
	}
}

package model

import (
	"testing"

	"github.com/txlab/txlab/sqlast"
)

// FuzzSingleTable: singleTable takes any parsed UPDATE or DELETE across
// tables without panicking, and the single-table write it returns formats
// in the dialect and parses back as one write of the target alone.
func FuzzSingleTable(f *testing.F) {
	for _, s := range []string{
		"UPDATE a JOIN b ON a.k = b.id SET a.v = b.w WHERE b.w > 1",
		"UPDATE a, b SET a.v = 1 WHERE a.k = b.id",
		"UPDATE a AS x JOIN b ON x.k = b.id SET x.v = b.w",
		"UPDATE a JOIN b ON a.k = b.id JOIN a AS a2 ON a2.id = b.id SET a.v = a2.v",
		"UPDATE a LEFT JOIN b ON a.k = b.id SET a.v = b.w",
		"UPDATE a JOIN b ON a.k = b.id SET v = w, k = 1",
		"DELETE a FROM a JOIN b ON a.k = b.id WHERE b.w = 10",
		"DELETE a, b FROM a JOIN b ON a.k = b.id",
		"DELETE x FROM a AS x, b WHERE x.k = b.id",
		"UPDATE a JOIN (SELECT id FROM b) AS s ON a.k = s.id SET a.v = 1",
		"UPDATE a JOIN b ON a.k = (SELECT MAX(id) FROM b) SET a.v = 1",
	} {
		f.Add(0, s) // MySQL
	}
	for _, s := range []string{
		"UPDATE a SET v = b.w FROM b WHERE a.k = b.id",
		"UPDATE a SET v = a.v + b.w FROM b JOIN a AS a2 ON a2.id = b.id WHERE a.k = b.id",
		"DELETE FROM a USING b WHERE a.k = b.id AND b.w = 10",
		"UPDATE a SET v = w FROM b",
	} {
		f.Add(1, s) // PostgreSQL
	}
	f.Fuzz(func(t *testing.T, dialect int, sql string) {
		d := []sqlast.Dialect{sqlast.MySQL, sqlast.Postgres, sqlast.SQLite}[uint(dialect)%3]
		st, err := sqlast.Parse(d, sql)
		if err != nil {
			return
		}
		feature := sqlast.CrossTable(st)
		if feature == "" {
			return
		}
		e := NewEngine(Lookup("postgres", "read-committed", nil), d, nil)
		for _, ct := range []string{"CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT)", "CREATE TABLE b (id INT PRIMARY KEY, w INT, v INT)"} {
			c, err := sqlast.Parse(d, ct)
			if err != nil {
				t.Skip(err)
			}
			e.schema[c.(*sqlast.CreateTable).Name] = c.(*sqlast.CreateTable)
		}
		out, j, reason := e.singleTable(sqlast.Clone(st), feature)
		if reason != "" {
			if out != nil || j != nil {
				t.Fatalf("%q: a reason (%s) and a statement", sql, reason)
			}
			return
		}
		if out == nil || j == nil || len(j.tables) == 0 {
			t.Fatalf("%q: no statement and no reason", sql)
		}
		text := sqlast.Format(d, out)
		back, err := sqlast.Parse(d, text)
		if err != nil {
			t.Fatalf("%q became %q, which does not parse: %v", sql, text, err)
		}
		if sqlast.CrossTable(back) != "" {
			t.Fatalf("%q became %q, still a write across tables", sql, text)
		}
	})
}

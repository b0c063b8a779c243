package connect

import (
	"strings"
	"testing"
)

// TestSplit: --db's comma-separated targets; a single URL stays one.
func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"sqlite", []string{"sqlite"}},
		{"postgres@10,postgres@18,tidb", []string{"postgres@10", "postgres@18", "tidb"}},
		{"sqlite,duckdb", []string{"sqlite", "duckdb"}},
		{" sqlite , mariadb ,", []string{"sqlite", "mariadb"}},
		{"postgres@/usr/lib/postgresql/15/bin,postgres", []string{"postgres@/usr/lib/postgresql/15/bin", "postgres"}},
		{"mysql://root:pw@127.0.0.1:3306/?tls=false", []string{"mysql://root:pw@127.0.0.1:3306/?tls=false"}},
		{",", nil},
	} {
		if got := Split(tt.in); strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDBMS: the DBMS a --db value names by itself, "" for a URL and for
// a value that names no target.
func TestDBMS(t *testing.T) {
	for in, want := range map[string]string{
		"sqlite": "sqlite", "sqlite:/tmp/a.db": "sqlite", "": "sqlite",
		"mariadb": "mariadb", "postgres": "postgres", "PostgreSQL": "postgres", "postgres@18": "postgres",
		"postgres@/usr/lib/postgresql/15/bin": "postgres", "tidb": "tidb", "duckdb": "duckdb", "duckdb:/tmp/x.db": "duckdb",
		"mysql://root@127.0.0.1:3306/": "", "postgres://me@localhost/postgres": "", "oracle": "",
	} {
		if got := DBMS(in); got != want {
			t.Errorf("DBMS(%q) = %q, want %q", in, got, want)
		}
	}
}

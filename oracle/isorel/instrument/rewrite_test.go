package instrument

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// rewriteAll runs the input file through a fresh rewriter for dialect d and
// renders what it would send, one block per input line.
func rewriteAll(t *testing.T, info target.Info, input string) string {
	t.Helper()
	rw := NewRewriter(info)
	d := info.Dialect
	var b strings.Builder
	var lines []string
	for _, l := range strings.Split(input, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	for _, line := range lines {
		if s, ok := strings.CutPrefix(line, "setup "); ok {
			out, info := rw.Setup(s)
			fmt.Fprintf(&b, "setup> %s\n  %s\n  %s\n", s, out, describe(info))
		}
	}
	// "view" lines are predicate reads (as Instrument's first pass finds
	// them), registered before any statement is rewritten.
	for _, line := range lines {
		if s, ok := cutView(line); ok {
			st, err := sqlast.Parse(d, s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			rw.predicateOf(st)
			if sel, ok := st.(*sqlast.SelectStmt); ok && strings.HasPrefix(line, "txnview ") {
				subs, _ := rw.subqueries(sel)
				for _, q := range subs {
					rw.register(q.From[0].(*sqlast.Table).Name, q.Where)
				}
			}
		}
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "setup ") {
			continue
		}
		v := noView
		if s, ok := strings.CutPrefix(line, "view "); ok {
			line, v = s, viewStatement
		} else if s, ok := strings.CutPrefix(line, "txnview "); ok {
			line, v = s, viewTxn
		}
		sent, info := rw.statement(testcase.Classify(line), 3, v)
		fmt.Fprintf(&b, "> %s\n", line)
		for _, s := range sent {
			fmt.Fprintf(&b, "  [%s] %s\n", s.Role, s.SQL)
			// What the rewriter makes must stay inside the subset (but
			// for SET @v = '', which the subset has no statement for).
			if _, err := sqlast.Parse(d, s.SQL); info.Instrumented && s.Role != RolePrepare && err != nil {
				t.Errorf("sent statement does not parse: %s: %v", s.SQL, err)
			}
		}
		fmt.Fprintf(&b, "  %s\n", describe(info))
	}
	return b.String()
}

// cutView strips a "view " or "txnview " prefix (see predicates.sql).
func cutView(line string) (string, bool) {
	for _, p := range []string{"view ", "txnview "} {
		if s, ok := strings.CutPrefix(line, p); ok {
			return s, true
		}
	}
	return line, false
}

func describe(i Info) string {
	var f []string
	f = append(f, "kind="+i.Kind)
	if !i.Instrumented {
		f = append(f, "uninstrumented")
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{{i.Aggregate, "aggregate"}, {i.Locking, "locking"}, {i.PreDeletes, "pre-deletes"}, {i.Returning, "returning"}, {i.Hidden, "hidden"}, {i.Dedup, "dedup"}} {
		if flag.on {
			f = append(f, flag.name)
		}
	}
	if len(i.Inserted) > 0 {
		f = append(f, "inserted="+strings.Join(i.Inserted, ","))
	}
	if i.Predicate != "" {
		f = append(f, "predicate="+i.Predicate)
	}
	if i.Scans {
		f = append(f, "scans")
	}
	if len(i.Evaluated) > 0 {
		f = append(f, "evaluated="+strings.Join(i.Evaluated, ","))
	}
	for _, s := range i.Subs {
		f = append(f, fmt.Sprintf("sub=%s:%s:items=%v", s.Predicate, s.SQL, s.Items))
	}
	if i.Note != "" {
		f = append(f, "note="+i.Note)
	}
	return strings.Join(f, " ")
}

func TestRewriteGolden(t *testing.T) {
	for _, name := range []string{"statements", "predicates"} {
		t.Run(name, func(t *testing.T) { golden(t, name) })
	}
}

func golden(t *testing.T, name string) {
	in, err := os.ReadFile(filepath.Join("testdata", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range goldenTargets {
		t.Run(info.DBMS, func(t *testing.T) {
			got := rewriteAll(t, info, string(in))
			path := filepath.Join("testdata", name+"."+info.DBMS+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("rewriting differs from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// goldenTargets are the DBMSs the golden files and the fuzz test rewrite
// for: MySQL without RETURNING (the pre-read path), MariaDB with it, the
// others with it.
var goldenTargets = []target.Info{
	{DBMS: "mysql", Dialect: sqlast.MySQL},
	{DBMS: "mariadb", Dialect: sqlast.MySQL, Returning: true},
	{DBMS: "postgres", Dialect: sqlast.Postgres, Returning: true},
	{DBMS: "sqlite", Dialect: sqlast.SQLite, Returning: true},
}

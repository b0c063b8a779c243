package scope_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// corpusFiles are the repository's case files: the known-bug corpus, the
// examples, the converters' outputs and every package's testdata.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".txn") {
			return nil
		}
		rel, _ := filepath.Rel("../..", path)
		if strings.HasPrefix(rel, "bugs/") || strings.HasPrefix(rel, "examples/") || strings.Contains(rel, "testdata/") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// corpusRefused lists the corpus files the check refuses:
// each does server administration (SET GLOBAL, FLUSH) or XA. A change to this list
// is a change to what txlab runs.
var corpusRefused = []string{
	"bugs/mdev-21516-replbug.txn",   // SET GLOBAL innodb_limit_optimistic_insert_debug
	"bugs/mdev-24224-replbug.txn",   // SET GLOBAL INNODB_STATUS_OUTPUT_LOCKS
	"bugs/mdev-24545-replbug.txn",   // FLUSH TABLES
	"bugs/mdev-25297-replbug.txn",   // XA START (a prepared XA transaction outlives the run)
	"bugs/mdev-28944-replbug.txn",   // XA START
	"bugs/mysql-100293-replbug.txn", // FLUSH STATUS
	"bugs/mysql-91646-replbug.txn",  // SET GLOBAL super_read_only
	"bugs/mysql-92558-replbug.txn",  // SET GLOBAL innodb_monitor_enable
	"bugs/mysql-92993-replbug.txn",  // SET GLOBAL general_log
	"bugs/tidb-20002-replbug.txn",   // SET @@tidb_enable_clustered_index (a TiDB variable)
	"bugs/tidb-21151-replbug.txn",   // SET GLOBAL TRANSACTION ISOLATION LEVEL
	"bugs/tidb-21284-replbug.txn",   // SET @@tidb_disable_txn_auto_retry
	"bugs/tidb-21470-replbug.txn",   // SET @@global.tidb_enable_change_column_type
	"bugs/tidb-23380-replbug.txn",   // SET tidb_snapshot
	"bugs/tidb-25176-replbug.txn",   // CREATE TABLE test.ttt, outside txlab's database
	"bugs/tidb-29947-replbug.txn",   // a string with a backslash escape
	"bugs/tidb-30289-replbug.txn",   // a string with a backslash escape
	"bugs/tidb-30397-replbug.txn",   // a string with a backslash escape
	"bugs/tidb-30410-replbug.txn",   // SET tidb_constraint_check_in_place
	"bugs/tidb-30633-replbug.txn",   // a string with a backslash escape
	// Import test data: what a vendor's test holds, as imported.
	"convert/mysqltest/testdata/delimiter.txn", // a string with a backslash escape
	"convert/pgspec/testdata/levels.txn",       // CREATE FUNCTION
}

// TestCorpus: every case file of the repository passes the check under the
// dialect of its dbms header (one dialect at least when it has none), and so
// does IsoRel's rewrite of it, except the files corpusRefused lists.
func TestCorpus(t *testing.T) {
	var refused []string
	n := 0
	for _, f := range corpusFiles(t) {
		c, err := testcase.ParseFile(filepath.Join("../..", f))
		if err != nil {
			continue // not a case file (a converter's expected output with several)
		}
		n++
		ds := []sqlast.Dialect{sqlast.MySQL, sqlast.Postgres, sqlast.SQLite}
		if c.DBMS != "" {
			d, err := sqlast.ParseDialect(strings.Fields(c.DBMS)[0])
			if err != nil {
				t.Errorf("%s: dbms %q", f, c.DBMS)
				continue
			}
			ds = []sqlast.Dialect{d}
		}
		stmts := append(append([]string{}, c.Setup...), stepsOf(c)...)
		// Without a dbms header a file must pass in one dialect at least.
		var why []string
		for _, d := range ds {
			info := target.Info{DBMS: d.String(), Dialect: d, Schema: "txlab", Returning: true}
			if d == sqlast.SQLite {
				info.Schema = "main"
			}
			rules := scope.For(info, false)
			passed := true
			for _, s := range stmts {
				if err := scope.Check(s, rules); err != nil {
					why = append(why, fmt.Sprintf("%s (%s): %v: %s", f, d, err, s))
					passed = false
					break
				}
			}
			if !passed {
				continue
			}
			// IsoRel's rewrite of a case that passes runs through the same
			// check in the executor: it must pass too.
			p, err := instrument.Instrument(c, info)
			if err != nil {
				continue // IsoRel does not judge this case
			}
			for _, s := range append(append([]string{}, p.Case.Setup...), stepsOf(p.Case)...) {
				if err := scope.Check(s, rules); err != nil {
					t.Errorf("%s (%s): IsoRel's rewrite %q is refused: %v", f, d, s, err)
					break
				}
			}
		}
		if len(why) == len(ds) {
			refused = append(refused, f)
			for _, w := range why {
				t.Log(w)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d case files found", n)
	}
	slices.Sort(refused)
	if !slices.Equal(refused, corpusRefused) {
		t.Errorf("refused corpus files:\n%s\nwant:\n%s", strings.Join(refused, "\n"), strings.Join(corpusRefused, "\n"))
	}
}

func stepsOf(c *testcase.Case) []string {
	var out []string
	for _, s := range c.Steps {
		out = append(out, s.SQL)
	}
	return out
}

package convert

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/txlab/txlab/testcase"
)

// dumpKeeps are the statements of a mysqldump file a case's setup needs:
// the tables, their indexes and rows. DROP TABLE (txlab starts from an
// empty database), LOCK/UNLOCK TABLES and the dump's SET statements (in
// version comments, which SplitStatements drops) go.
var dumpKeeps = regexp.MustCompile(`(?i)^(CREATE\s+(TABLE|(UNIQUE\s+)?INDEX)|INSERT\s+INTO)\s`)

// DumpSetup reads a mysqldump file (TxCheck's databases, which ReplBug
// keeps as data/sql/BUG_mysql_bk.sql) as setup statements.
func DumpSetup(name string, r io.Reader) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	stmts, err := testcase.SplitStatements(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []string
	for _, s := range stmts {
		if dumpKeeps.MatchString(s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no CREATE TABLE or INSERT statement: not a database dump", name)
	}
	return out, nil
}

// ReplBugDump finds the database dump ReplBug keeps for a bug whose
// scenario has no setup of its own: data/sql/BUG_mysql_bk.sql in the
// module's folder or one of its parents (the repository has the modules in
// src/testcase/bug_list and the dumps in data/sql). "" when there is none.
func ReplBugDump(module, bug string) string {
	if bug == "" {
		return ""
	}
	dir := filepath.Dir(module)
	for range 5 {
		p := filepath.Join(dir, "data", "sql", bug+"_mysql_bk.sql")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

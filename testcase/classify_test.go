package testcase

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

var updateKinds = flag.Bool("update-kinds", false, "rewrite testdata/kinds.txt from the corpus")

// The classifiers that Classify replaced, as they were at their call
// sites: the first-keyword helpers of wss and instrument, wss's IsWrite
// and IsRead, and SignatureKind. Every statement of the corpus must get
// the same decisions from Kind.
func oldKeyword(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(strings.TrimSuffix(f[0], ";"))
}

func oldIsWrite(sql string) bool {
	switch oldKeyword(sql) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "UPSERT":
		return true
	}
	return false
}

func oldIsRead(sql string) bool {
	switch oldKeyword(sql) {
	case "SELECT", "VALUES", "TABLE":
		return true
	}
	return false
}

func oldSignatureKind(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	kw := strings.ToUpper(strings.TrimSuffix(f[0], ";"))
	if kw == "INSERT" {
		up := strings.ToUpper(strings.Join(f, " "))
		if strings.Contains(up, " ON CONFLICT") || strings.Contains(up, " ON DUPLICATE KEY UPDATE") {
			return "UPSERT"
		}
	}
	return kw
}

var oldLockingReadRE = regexp.MustCompile(`(?i)\bFOR\s+(NO\s+KEY\s+)?UPDATE\b|\bFOR\s+(KEY\s+)?SHARE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b`)

// corpus is every setup statement and step of the known bugs, the
// examples and the valid test cases.
func corpus(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, g := range []string{"../bugs/*.txn", "../examples/*.txn", "testdata/valid/*.txn", "testdata/examples/*.txn"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("only %d case files found", len(files))
	}
	seen := map[string]bool{"": true, "  ": true, "ROLLBACK TO SAVEPOINT a": true, "START SLAVE": true, "end;": true}
	out := []string{"", "  ", "ROLLBACK TO SAVEPOINT a", "START SLAVE", "end;"}
	for _, f := range files {
		c, err := ParseFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sqls := append([]string(nil), c.Setup...)
		for _, s := range c.Steps {
			sqls = append(sqls, s.SQL)
		}
		for _, s := range sqls {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// sameKind reports whether a and b decide the same: each Classify makes a
// parse memo of its own.
func sameKind(a, b Kind) bool {
	a.parse, b.parse = nil, nil
	return a == b
}

// describe writes a kind as a line of testdata/kinds.txt.
func describe(k Kind) string {
	return fmt.Sprintf("%s %s %s write=%t query=%t changes=%t locking=%t schema=%t", k.Keyword, []string{"-", "begin", "commit", "rollback"}[k.Control],
		k.Signature(), k.IsWrite(), k.IsQuery(), k.Changes, k.LockingRead, k.Schema)
}

// TestClassifyCorpus compares Classify with the classifiers it replaced.
func TestClassifyCorpus(t *testing.T) {
	for _, sql := range corpus(t) {
		k := Classify(sql)
		if k.Keyword != oldKeyword(sql) || k.Control != ControlOf(sql) || k.Signature() != oldSignatureKind(sql) ||
			k.IsWrite() != oldIsWrite(sql) || k.IsQuery() != oldIsRead(sql) || k.Of != sql ||
			k.Changes != target.ChangesRows(sql) || k.LockingRead != oldLockingReadRE.MatchString(sql) || k.Schema == target.KeepsDefinitions(sql) {
			t.Errorf("Classify(%q) = %+v, differs from the old classifiers", sql, k)
		}
		if got := KindOf(Step{SQL: sql}); !sameKind(got, k) {
			t.Errorf("KindOf(step without a kind %q) = %+v, want %+v", sql, got, k)
		}
	}
	for _, sql := range []string{"SELECT * FROM t FOR UPDATE", "select 1 for no key update", "SELECT a FROM t LOCK IN SHARE MODE", "SELECT 1 FOR KEY SHARE"} {
		if !Classify(sql).LockingRead {
			t.Errorf("Classify(%q) is not a locking read", sql)
		}
	}
	// A kind read for another text than it was decided from is decided
	// again: events and steps whose SQL was rewritten never reuse it.
	if got := Classify("COMMIT").For("ROLLBACK"); got.Control != Rollback {
		t.Errorf("Classify(COMMIT).For(ROLLBACK) = %+v, want a rollback", got)
	}
	if got := (Kind{}).For(""); !sameKind(got, Classify("")) {
		t.Errorf("Kind{}.For(\"\") = %+v, want %+v", got, Classify(""))
	}
	// A step edited after it was classified is classified again.
	st := Step{SQL: "INSERT INTO t VALUES (1)", Kind: Classify("SELECT 1")}
	if got := KindOf(st); got.Keyword != "INSERT" {
		t.Errorf("KindOf(edited step) = %+v, want INSERT", got)
	}
}

// TestClassifyTable checks Classify against testdata/kinds.txt: one line
// per statement of the corpus, its decisions, a tab and the statement
// quoted. Run with -update-kinds to rewrite it.
func TestClassifyTable(t *testing.T) {
	const path = "testdata/kinds.txt"
	if *updateKinds {
		var b strings.Builder
		for _, sql := range corpus(t) {
			fmt.Fprintf(&b, "%s\t%s\n", describe(Classify(sql)), strconv.Quote(sql))
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		want, quoted, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("line %d: no tab", n+1)
		}
		sql, err := strconv.Unquote(quoted)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if got := describe(Classify(sql)); got != want {
			t.Errorf("Classify(%q) = %s, want %s", sql, got, want)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d statements in %s", n, path)
	}
}

// FuzzClassify holds Classify to the classifiers it replaced on any text.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"", "SELECT 1 FOR UPDATE", "insert into t values (1) on conflict do nothing", "ROLLBACK TO a", "start transaction", "(SELECT 1)", "UPDATE; x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		k := Classify(sql)
		if k.Keyword != oldKeyword(sql) || k.Control != ControlOf(sql) || k.Signature() != oldSignatureKind(sql) ||
			k.IsWrite() != oldIsWrite(sql) || k.IsQuery() != oldIsRead(sql) ||
			k.Changes != target.ChangesRows(sql) || k.LockingRead != oldLockingReadRE.MatchString(sql) || k.Schema == target.KeepsDefinitions(sql) {
			t.Errorf("Classify(%q) = %+v, differs from the old classifiers", sql, k)
		}
		if !sameKind(KindOf(Step{SQL: sql}), k) {
			t.Errorf("KindOf(Step{SQL: %q}) differs from Classify", sql)
		}
	})
}

// TestStmt: a step's statement is parsed once per dialect and shared by
// every copy of its kind; a step edited since its kind was decided, or
// built without one, is parsed from its own text.
func TestStmt(t *testing.T) {
	c, err := ParseString("c", "CREATE TABLE t (a INT);\n1> SELECT a FROM t;\n")
	if err != nil {
		t.Fatal(err)
	}
	st := c.Steps[0]
	a, err := StmtOf(st, sqlast.MySQL)
	if err != nil {
		t.Fatal(err)
	}
	copied := st
	if b, _ := StmtOf(copied, sqlast.MySQL); b != a {
		t.Errorf("a copy of the step parsed its statement again")
	}
	if b, _ := KindOf(st).Stmt(sqlast.Postgres); b == a {
		t.Errorf("PostgreSQL's parse is MySQL's")
	}
	copied.SQL = "UPDATE t SET a = 1"
	if b, err := StmtOf(copied, sqlast.MySQL); err != nil || sqlast.Format(sqlast.MySQL, b) != "UPDATE t SET a = 1" {
		t.Errorf("an edited step's statement = %v, %v, want its new text's", b, err)
	}
	if b, err := StmtOf(Step{SQL: "SELECT 1"}, sqlast.SQLite); err != nil || sqlast.Format(sqlast.SQLite, b) != "SELECT 1" {
		t.Errorf("a step without a kind: %v, %v", b, err)
	}
	if _, err := StmtOf(Step{SQL: "SELECT FROM"}, sqlast.SQLite); err == nil {
		t.Errorf("a statement that does not parse parsed")
	}
}

// TestOwnStmt: OwnStmt is an equal copy of the shared parse, changing
// which leaves the parse as it is.
func TestOwnStmt(t *testing.T) {
	k := Classify("SELECT * FROM t WHERE a = 1")
	shared, _ := k.Stmt(sqlast.MySQL)
	own, err := k.OwnStmt(sqlast.MySQL)
	if err != nil || own == shared || sqlast.Format(sqlast.MySQL, own) != sqlast.Format(sqlast.MySQL, shared) {
		t.Fatalf("OwnStmt = %v, %v: want an equal copy of %v", own, err, shared)
	}
	own.(*sqlast.SelectStmt).Query.(*sqlast.Select).Where = nil
	if again, _ := k.Stmt(sqlast.MySQL); sqlast.Format(sqlast.MySQL, again) != "SELECT * FROM t WHERE a = 1" {
		t.Errorf("changing the copy changed the shared parse: %s", sqlast.Format(sqlast.MySQL, again))
	}
	if _, err := Classify("SELECT FROM").OwnStmt(sqlast.MySQL); err == nil {
		t.Error("a statement that does not parse parsed")
	}
}

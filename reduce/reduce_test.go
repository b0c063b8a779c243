package reduce

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

func TestParseKeyMatches(t *testing.T) {
	key, err := ParseKey("wss tx-wss DELETE+REPLACE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]")
	if err != nil {
		t.Fatal(err)
	}
	if got := key.String(); got != "wss tx-wss DELETE+REPLACE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]" {
		t.Errorf("String() = %q", got)
	}
	finding := func(sig string) verdict.Finding {
		k, err := ParseKey(sig)
		if err != nil {
			t.Fatal(err)
		}
		return verdict.Finding{Oracle: k.Oracle, Kind: k.Kind, Isolation: k.Isolation, Verdict: k.Verdict, Rule: k.Rule, Signature: sig}
	}
	for _, tt := range []struct {
		sig  string
		want bool
	}{
		{"wss tx-wss DELETE+REPLACE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", true},
		{"wss tx-wss REPLACE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", true}, // fewer kinds
		{"wss tx-wss INSERT+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", false}, // a new kind
		{"wss stmt-wss REPLACE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", false},
		{"troc tx-wss REPLACE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", false},
		{"wss tx-wss REPLACE+UPDATE repeatable-read bug [mdev-30835-update-skips-uncommitted-insert]", false},
		{"wss tx-wss REPLACE+UPDATE read-committed suspect [mdev-30835-update-skips-uncommitted-insert]", false},
		{"wss tx-wss REPLACE+UPDATE read-committed bug [wss-fcrfs]", false},
		{"wss tx-wss read-committed bug [mdev-30835-update-skips-uncommitted-insert]", true}, // the rule names the cause: no kinds
		{"wss tx-wss SELECT FOR UPDATE+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", false},
	} {
		if got := key.Matches(finding(tt.sig)); got != tt.want {
			t.Errorf("%q: Matches = %v, want %v", tt.sig, got, tt.want)
		}
	}
	// A known finding keeps its signature (with the verdict before
	// suppression): it still matches.
	known := finding("wss tx-wss UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]")
	known.Verdict = verdict.Known
	if !key.Matches(known) {
		t.Error("a suppressed finding no longer matches its own key")
	}
	// A signature without statement kinds (its rule names the cause) keys
	// findings of any kinds.
	whole, err := ParseKey("wss tx-wss read-committed bug [mdev-30835-update-skips-uncommitted-insert]")
	if err != nil || len(whole.Kinds) != 0 || whole.Isolation != "read-committed" || whole.Verdict != verdict.Bug || whole.String() != "wss tx-wss read-committed bug [mdev-30835-update-skips-uncommitted-insert]" {
		t.Errorf("a signature without kinds: %+v, %v", whole, err)
	}
	if !whole.Matches(finding("wss tx-wss read-committed bug [mdev-30835-update-skips-uncommitted-insert]")) {
		t.Error("a kind-less key does not match its own finding")
	}
	// Statement kinds with spaces, and no rule.
	k, err := ParseKey("troc incorrect-result SELECT FOR UPDATE+DELETE read-committed bug [mariadb-rc-statement-view]")
	if err != nil || len(k.Kinds) != 2 || k.Kinds[0] != "SELECT FOR UPDATE" || k.Isolation != "read-committed" || k.Rule != "mariadb-rc-statement-view" {
		t.Errorf("kinds with spaces: %+v, %v", k, err)
	}
	if k, err := ParseKey("wss tx-wss UPDATE read-committed allowed"); err != nil || k.Rule != "" || k.Verdict != verdict.Allowed {
		t.Errorf("no rule: %+v, %v", k, err)
	}
	for _, bad := range []string{"", "wss tx-wss UPDATE", "wss tx-wss UPDATE read-committed bug mdev]"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
}

// TestSimplifications checks the WHERE pass's candidates for each statement
// of testdata/simplify.txt.
func TestSimplifications(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "simplify.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ln, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sql, wantText, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("simplify.txt:%d: want statement | simplifications", ln+1)
		}
		var want []string
		if wantText != "-" {
			want = strings.Split(wantText, " || ")
		}
		s, err := sqlast.Parse(sqlast.MySQL, sql)
		if err != nil {
			t.Fatalf("simplify.txt:%d: %v", ln+1, err)
		}
		count := len(simplifications(s))
		if count != len(want) {
			t.Errorf("simplify.txt:%d: %d simplifications, want %d", ln+1, count, len(want))
			continue
		}
		for j := range count {
			s, _ := sqlast.Parse(sqlast.MySQL, sql) // each applies to a fresh parse
			simplifications(s)[j]()
			if got := sqlast.Format(sqlast.MySQL, s); got != want[j] {
				t.Errorf("simplify.txt:%d: simplification %d gives %q, want %q", ln+1, j+1, got, want[j])
			}
		}
		n++
	}
	if n < 5 {
		t.Errorf("only %d statements read", n)
	}
}

// TestPasses checks the case-level candidates: a transaction, a table with
// every statement naming it, a setup row.
func TestPasses(t *testing.T) {
	c, err := testcase.ParseFile(filepath.Join("testdata", "mdev-26643-padded.txn"))
	if err != nil {
		t.Fatal(err)
	}
	r := &reducer{opt: Options{Dialect: sqlast.MySQL}}
	txn := dropTransaction(r, c, 1) // T2 is connection 3's
	if txn == nil || len(txn.Steps) != len(c.Steps)-4 || strings.Contains(txn.String(), "3> ") {
		t.Errorf("dropping T2:\n%v", txn)
	}
	if dropTransaction(r, c, 99) != noMore {
		t.Error("a transaction past the last one")
	}
	tbl := dropTable(r, c, 1) // u
	if tbl == nil || strings.Contains(tbl.String(), " u ") || len(tbl.Setup) != 2 {
		t.Errorf("dropping table u:\n%v", tbl)
	} else if err := tbl.Validate(); err != nil {
		t.Errorf("dropping table u: %v", err)
	}
	row := dropRow(r, c, 0)
	if row == nil || row.Setup[2] != "INSERT INTO t VALUES (2, 2), (NULL, NULL), (NULL, 3), (4, NULL)" {
		t.Errorf("dropping the first setup row: %v", row.Setup)
	}
	if dropRow(r, c, 8) != noMore { // 5 + 3 rows
		t.Error("a row past the last one")
	}
	if c.Setup[2] != "INSERT INTO t VALUES(NULL, 1), (2, 2), (NULL, NULL), (NULL, 3), (4, NULL)" {
		t.Errorf("a candidate changed the case it came from: %q", c.Setup[2])
	}
}

func TestLiteralAndAutocommitPasses(t *testing.T) {
	s, err := sqlast.Parse(sqlast.MySQL, "UPDATE t SET a = 12.5, b = 'xyz' WHERE c = 1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for j := range literalSimplifications(s) {
		s, _ := sqlast.Parse(sqlast.MySQL, "UPDATE t SET a = 12.5, b = 'xyz' WHERE c = 1")
		literalSimplifications(s)[j]()
		got = append(got, sqlast.Format(sqlast.MySQL, s))
	}
	want := []string{
		"UPDATE t SET a = 0, b = 'xyz' WHERE c = 1",
		"UPDATE t SET a = 1, b = 'xyz' WHERE c = 1",
		"UPDATE t SET a = 12.5, b = 'a' WHERE c = 1",
		"UPDATE t SET a = 12.5, b = 'xyz' WHERE c = 0", // 1 only goes to 0
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("literal simplifications:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Simplest already: nothing, so kept candidates cannot cycle.
	for _, sql := range []string{"UPDATE t SET a = 0, b = 'a' WHERE c = 0", "UPDATE t SET a = 0, b = '' WHERE c = 0"} {
		s, _ := sqlast.Parse(sqlast.MySQL, sql)
		if n := len(literalSimplifications(s)); n != 0 {
			t.Errorf("%s: %d literal simplifications, want none", sql, n)
		}
	}
	s, _ = sqlast.Parse(sqlast.MySQL, "DELETE FROM t WHERE c = 1")
	if n := len(literalSimplifications(s)); n != 1 {
		t.Errorf("1 has %d simplifications, want 1 (to 0)", n)
	}

	c, err := testcase.ParseString("c.txn", "CREATE TABLE t (a INT);\n2> INSERT INTO t VALUES (1);\n1> BEGIN;\n1> UPDATE t SET a = 2;\n3> DELETE FROM t;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	r := &reducer{}
	first := autocommitToSetup(r, c, 0)
	if first == nil || len(first.Setup) != 2 || first.Setup[1] != "INSERT INTO t VALUES (1)" || len(first.Steps) != 4 {
		t.Errorf("moving the first autocommit step: %v", first)
	}
	if second := autocommitToSetup(r, c, 1); second == nil || second.Setup[1] != "DELETE FROM t" {
		t.Errorf("moving the second autocommit step: %v", second)
	}
	if autocommitToSetup(r, c, 2) != noMore {
		t.Error("BEGIN … COMMIT is not an autocommit step")
	}
}

func TestDropColumn(t *testing.T) {
	c, err := testcase.ParseString("c.txn", `CREATE TABLE t (a INT PRIMARY KEY, b INT, c VARCHAR(20) DEFAULT 'x');
CREATE TABLE u (b INT, d INT);
CREATE INDEX t_c ON t (c);
INSERT INTO t VALUES (1, 10, 'p'), (2, 20, 'q');
INSERT INTO t (a, c) VALUES (3, 'r');
INSERT INTO u VALUES (1, 2);
1> BEGIN;
1> UPDATE t SET b = b + 1 WHERE a = 1;
2> SELECT * FROM u WHERE b > 0;
1> COMMIT;
`)
	if err != nil {
		t.Fatal(err)
	}
	r := &reducer{opt: Options{Dialect: sqlast.MySQL}}
	// t.a is the primary key; t.b is updated; t.c goes with its index.
	for i := range 2 {
		if got := dropColumn(r, c, i); got != nil {
			t.Errorf("column %d dropped, want it kept:\n%s", i, got)
		}
	}
	got := dropColumn(r, c, 2)
	if got == nil {
		t.Fatal("column t.c not dropped")
	}
	wantSetup := []string{
		"CREATE TABLE t (a INT PRIMARY KEY, b INT)",
		"CREATE TABLE u (b INT, d INT)",
		"INSERT INTO t VALUES (1, 10), (2, 20)",
		"INSERT INTO t (a) VALUES (3)",
		"INSERT INTO u VALUES (1, 2)",
	}
	if !slices.Equal(got.Setup, wantSetup) || len(got.Steps) != 4 {
		t.Errorf("dropping t.c:\n%s", strings.Join(got.Setup, "\n"))
	}
	// u.b shares its name with t.b but only u's statements name it: the
	// UPDATE of t.b does not hold it.
	if got := dropColumn(r, c, 3); got != nil {
		t.Errorf("u.b dropped although SELECT … FROM u WHERE b > 0 names it:\n%s", got)
	}
	if got := dropColumn(r, c, 4); got == nil || got.Setup[5] != "INSERT INTO u VALUES (1)" || got.Setup[1] != "CREATE TABLE u (b INT)" {
		t.Errorf("dropping u.d: %v", got)
	}
	if dropColumn(r, c, 5) != noMore {
		t.Error("a column past the last one")
	}
}

func TestSwapSteps(t *testing.T) {
	c, err := testcase.ParseString("c.txn", "CREATE TABLE t (a INT);\n1> BEGIN;\n2> BEGIN;\n1> UPDATE t SET a = 1;\n2> UPDATE t SET a = 2;\n1> COMMIT;\n2> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	r := &reducer{}
	// 1 2 1 2 1 2: 5 switches; swapping steps 1 and 2 gives 1 1 2 2 1 2: 3.
	got := swapSteps(r, c, 1)
	if got == nil || switches(got) != 3 || got.Steps[1].SQL != "UPDATE t SET a = 1" {
		t.Errorf("swap 1: %v", got)
	}
	c2, _ := testcase.ParseString("c.txn", "CREATE TABLE t (a INT);\n1> BEGIN;\n1> UPDATE t SET a = 1;\n2> BEGIN;\n2> UPDATE t SET a = 2;\n")
	if got := swapSteps(r, c2, 1); got != nil {
		t.Errorf("a swap that adds switches: %v", got)
	}
	if swapSteps(r, c2, 3) != noMore {
		t.Error("a swap past the last step")
	}
}

// TestRenumberConnections: connections 3 and 5 of a case whose others were
// dropped become 1 and 2, in the order of their first steps, with their
// levels; a case numbered so already has no candidate.
func TestRenumberConnections(t *testing.T) {
	c, err := testcase.ParseString("c.txn", "-- isolation.5: serializable\nCREATE TABLE t (a INT);\n5> BEGIN;\n3> UPDATE t SET a = 1;\n5> UPDATE t SET a = 2;\n5> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	got := renumberConnections(nil, c, 0)
	if got == nil || got == noMore {
		t.Fatalf("no candidate for connections 5 and 3")
	}
	var conns []int
	for _, s := range got.Steps {
		conns = append(conns, s.Conn)
	}
	if fmt.Sprint(conns) != "[1 2 1 1]" || got.LevelOf(1) != target.Serializable || got.LevelOf(2) == target.Serializable {
		t.Errorf("connections %v, levels %q %q; want [1 2 1 1], connection 1 serializable", conns, got.LevelOf(1), got.LevelOf(2))
	}
	if renumberConnections(nil, got, 0) != nil {
		t.Error("a case numbered 1, 2 already has a candidate")
	}
	if renumberConnections(nil, c, 1) != noMore {
		t.Error("more than one candidate")
	}
}

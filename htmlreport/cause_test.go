package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// TestOneRowPerCause: two findings of one bug from two oracles (a troc
// and a wss finding under MDEV-30835's rule), written by one writer, are
// one row of the index naming both oracles, and the bundle's page links
// the second oracle's evidence; allowed findings counted without a
// bundle are one line, not a table.
func TestOneRowPerCause(t *testing.T) {
	dir := t.TempDir()
	c, err := testcase.ParseString("case.txn", "CREATE TABLE t (id INT PRIMARY KEY);\n1> SELECT * FROM t;\n")
	if err != nil {
		t.Fatal(err)
	}
	w := &report.Writer{Dir: dir}
	const rule = "mdev-30835-update-skips-uncommitted-insert"
	for _, f := range []verdict.Finding{
		{Oracle: "troc", Kind: "incorrect-blocking", Verdict: verdict.Bug, Rule: rule, Isolation: "read-committed"},
		{Oracle: "wss", Kind: "tx-wss", Verdict: verdict.Bug, Rule: rule, Isolation: "read-committed"},
		{Oracle: "wss", Kind: "tx-wss", Verdict: verdict.Allowed, Rule: "innodb-rc-no-gap-locks", Isolation: "read-committed"},
		{Oracle: "troc", Kind: "incorrect-result", Verdict: verdict.Allowed, Rule: "innodb-rc-semi-consistent", Isolation: "read-committed"},
	} {
		if _, _, err := w.Write(report.Bundle{Finding: f, Case: c, StmtKinds: []string{"SELECT"}, Text: f.Oracle + " text"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.SaveSummary(); err != nil {
		t.Fatal(err)
	}
	index, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	html := read(t, index)
	if n := strings.Count(html, `<tr class="finding"`); n != 1 {
		t.Errorf("%d rows in the index, want 1:\n%s", n, html)
	}
	for _, want := range []string{"<td>troc 1, wss 1</td>", `<p id="unbundled"`, "2 allowed findings (documented behaviour of the DBMS, 2 signatures)"} {
		if !strings.Contains(html, want) {
			t.Errorf("the index lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "<table id=\"unbundled\"") {
		t.Error("the index still tables the allowed findings")
	}
	entries, _ := os.ReadDir(dir)
	var bundle string
	for _, e := range entries {
		if e.IsDir() {
			bundle = e.Name()
		}
	}
	page := read(t, filepath.Join(dir, bundle, report.PageFile))
	if !strings.Contains(page, `<a href="wss-report.txt">wss-report.txt</a>`) {
		t.Errorf("the page does not link wss's evidence:\n%s", page)
	}
}

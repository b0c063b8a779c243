package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/convert/upstream"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// TestBundleGoesUpstream: a bundle holds its case as the vendors' tests
// (a spec, a mysql-test file), a script per terminal and the bug report
// to paste, which names the server and level and holds no txlab header or
// local path; a reduction rewrites them for the reduced case.
func TestBundleGoesUpstream(t *testing.T) {
	dir := t.TempDir()
	w := &report.Writer{Dir: dir, DB: &report.DB{Spec: "mariadb", DBMS: "mariadb", Version: "10.11.6-MariaDB"}, Replay: []string{"--db", "mariadb"}}
	b := bundle(t, "tx-wss", verdict.Bug, "UPDATE")
	b.Case.Seed, b.Case.ReducedFrom = "42", "/home/me/case.txn"
	f, _, err := w.Write(b)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(f.Dir, name))
		if err != nil {
			t.Fatalf("the bundle has no %s: %v", name, err)
		}
		return string(data)
	}
	for _, name := range []string{upstream.SpecFile, upstream.TestFile, upstream.TerminalsFile} {
		if text := read(name); !strings.Contains(text, b.Case.Steps[0].SQL) {
			t.Errorf("%s lacks the case's first statement:\n%s", name, text)
		}
	}
	paste := read(upstream.PasteFile)
	for _, want := range []string{"DBMS: mariadb 10.11.6-MariaDB", "Isolation level: READ COMMITTED", "-- connection 1"} {
		if !strings.Contains(paste, want) {
			t.Errorf("the paste block lacks %q:\n%s", want, paste)
		}
	}
	for _, bad := range []string{"seed", "reduced-from", "/home/me", "replay", "txlab"} {
		if strings.Contains(paste, bad) {
			t.Errorf("the paste block holds %q:\n%s", bad, paste)
		}
	}

	// Reduced to its first two statements: the upstream files follow.
	red := b
	c := *b.Case
	c.Steps = c.Steps[:2]
	red.Case = &c
	if err := report.RewriteReduced(f.Dir, red, "reduced\n"); err != nil {
		t.Fatal(err)
	}
	if text := read(upstream.SpecFile); strings.Contains(text, b.Case.Steps[3].SQL) {
		t.Errorf("the reduced bundle's spec still holds a statement the reduction removed:\n%s", text)
	}
}

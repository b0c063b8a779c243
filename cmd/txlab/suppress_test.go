package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/verdict"
)

// TestSuppress: the corpus's MDEV-30835 case gives bug findings on MariaDB
// RC; suppressed by their own signatures (copied from the JSON output), or
// by the bug id, the same run exits 0, prints every finding as known and
// writes no bundle.
func TestSuppress(t *testing.T) {
	localdbtest.Require(t, localdb.MariaDB)
	const bugCase = "../../bugs/mdev-30835-found-rc-replace.txn"
	code, stdout, stderr := txlab(t, "run", "--db", "mariadb", "--json", "--out", t.TempDir(), bugCase)
	if code != 1 {
		t.Fatalf("unsuppressed: exit %d, want 1: %s", code, stderr)
	}
	var sigs []string
	for _, cr := range decodeCases(t, stdout) {
		for _, f := range cr.Findings {
			if f.Verdict == verdict.Bug {
				sigs = append(sigs, f.Signature)
			}
		}
	}
	if len(sigs) == 0 || slices.Contains(sigs, "") {
		t.Fatalf("bug findings' signatures %q", sigs)
	}
	dir := t.TempDir()
	bySig := filepath.Join(dir, "signatures.txt")
	byID := filepath.Join(dir, "ids.txt")
	os.WriteFile(bySig, []byte("# copied from the findings\n"+strings.Join(sigs, "\n")+"\n"), 0o644)
	os.WriteFile(byID, []byte("MDEV-30835\n"), 0o644)
	for _, file := range []string{bySig, byID} {
		out := t.TempDir()
		code, stdout, stderr := txlab(t, "run", "--db", "mariadb", "--suppress", file, "--out", out, bugCase)
		if code != 0 {
			t.Errorf("--suppress %s: exit %d, want 0: %s", filepath.Base(file), code, stderr)
		}
		if n := strings.Count(stdout, "verdict known"); n != len(sigs) || strings.Contains(stdout, "verdict bug") {
			t.Errorf("--suppress %s: %d known findings, want %d:\n%s", filepath.Base(file), n, len(sigs), stdout)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("--suppress %s: %d bundles written for known findings", filepath.Base(file), len(entries))
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/report"
)

// bundleDirs lists the bundle directories under dir.
func bundleDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "report.json")); err == nil {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// TestOneBugOneBundle is issue 42's MDEV-30835 on MariaDB: troc and wss
// both find the bug in the corpus's case, under the bug's rule, and the
// run writes one bundle holding both oracles' evidence; replaying that
// bundle writes no new one (the index would show the bug again), unless
// --out asks.
func TestOneBugOneBundle(t *testing.T) {
	localdbtest.Require(t, localdb.MariaDB)
	corpus, err := filepath.Abs("../../bugs/mdev-30835-found-rc-replace.txn")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // where a replay's default --out would go
	code, _, stderr := txlab(t, "run", "--db", "mariadb", "--oracle", "wss,troc", "--out", "found", corpus)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (bugs): %s", code, stderr)
	}
	found := bundleDirs(t, "found")
	if len(found) != 1 {
		t.Fatalf("%d bundles for one bug, want 1: %v", len(found), found)
	}
	var r report.Report
	data, err := os.ReadFile(filepath.Join(found[0], "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Also) != 1 || r.Also[0].Finding.Oracle == r.Finding.Oracle || r.Also[0].Finding.Rule != r.Finding.Rule {
		t.Fatalf("the bundle holds %s's finding and also %+v; want the other oracle's of the same rule", r.Finding.Oracle, r.Also)
	}

	code, _, stderr = txlab(t, "run", found[0])
	if code != 1 {
		t.Fatalf("replay: exit %d, want 1: %s", code, stderr)
	}
	if got := bundleDirs(t, "found"); len(got) != 1 {
		t.Errorf("the replay added bundles: %v", got)
	}
	if got := bundleDirs(t, report.DefaultDir); len(got) != 0 {
		t.Errorf("the replay wrote %v", got)
	}
	code, _, stderr = txlab(t, "run", "--out", "again", found[0])
	if code != 1 {
		t.Fatalf("replay --out: exit %d, want 1: %s", code, stderr)
	}
	if got := bundleDirs(t, "again"); len(got) != 1 {
		t.Errorf("replay --out again wrote %v, want one bundle", got)
	}
}

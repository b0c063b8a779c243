package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportMerge: several directories need --out; with it they merge
// (a missing one, a shard that found nothing, is said) and the index is
// written over the merge.
func TestReportMerge(t *testing.T) {
	src := "../../htmlreport/testdata/bundles"
	if code, _, errOut := txlab(t, "report", src, src); code != 2 || !strings.Contains(errOut, "need --out") {
		t.Errorf("two directories without --out: exit %d, %q", code, errOut)
	}
	out := filepath.Join(t.TempDir(), "merged")
	missing := filepath.Join(t.TempDir(), "shard-2")
	code, stdout, errOut := txlab(t, "report", "--out", out, src, missing, src)
	if code != 0 {
		t.Fatalf("report --out: exit %d, %s", code, errOut)
	}
	if !strings.Contains(errOut, "shard-2 does not exist") || !strings.Contains(errOut, "into "+out) {
		t.Errorf("stderr %q", errOut)
	}
	if strings.TrimSpace(stdout) != filepath.Join(out, "index.html") {
		t.Errorf("stdout %q", stdout)
	}
	entries, _ := filepath.Glob(filepath.Join(out, "*", "report.html"))
	orig, _ := filepath.Glob(filepath.Join(src, "*", "report.json"))
	if len(entries) != len(orig) {
		t.Errorf("%d bundle pages in the merge of a directory with itself, want %d (one per signature)", len(entries), len(orig))
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Error(err)
	}
}

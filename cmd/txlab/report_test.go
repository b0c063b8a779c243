package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
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

// TestReportOneBundle: txlab report BUNDLE_DIR writes that bundle's page
// (it used to look for bundles inside it); a directory that is not there
// is said in a sentence, not as the raw error of opening it.
func TestReportOneBundle(t *testing.T) {
	src, _ := filepath.Glob("../../htmlreport/testdata/bundles/*-wss-*")
	if len(src) == 0 {
		t.Fatal("no wss bundle in htmlreport/testdata")
	}
	dir := filepath.Join(t.TempDir(), filepath.Base(src[0]))
	if err := os.CopyFS(dir, os.DirFS(src[0])); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := txlab(t, "report", dir)
	if code != 0 || strings.TrimSpace(stdout) != filepath.Join(dir, "report.html") {
		t.Fatalf("report BUNDLE: exit %d, stdout %q: %s", code, stdout, stderr)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), "wss") {
		t.Errorf("report.html: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err == nil {
		t.Error("report BUNDLE wrote an index inside the bundle")
	}
	missing := filepath.Join(t.TempDir(), "nothing-here")
	code, _, stderr = txlab(t, "report", missing)
	if code != 2 || strings.Contains(stderr, "open ") || !strings.Contains(stderr, missing+" does not exist: a campaign that found nothing writes no directory") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("report of a missing directory: exit %d, %q", code, stderr)
	}
}

// TestReportShowsLargeFilesByName: a bundle file past the bound of what a
// page shows (report.MaxPageText, report.MaxPageJSON) is left out of the
// page, which names it instead, so a report's memory stays bounded and a
// genuine finding's large case does not fail the run; the file stays in
// the bundle.
func TestReportShowsLargeFilesByName(t *testing.T) {
	for _, name := range []string{"case.txn", "case.orig.txn", "report.txt", "report.json", "schedule.json"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "htmlreport", "testdata", "bundles"))); err != nil {
				t.Fatal(err)
			}
			b := filepath.Join(dir, "0004-troc-incorrect-blocking-bug")
			limit := report.MaxPageText
			if strings.HasSuffix(name, ".json") {
				limit = report.MaxPageJSON
			}
			big := bytes.Repeat([]byte("<"), limit+1)
			if err := os.WriteFile(filepath.Join(b, name), big, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, arg := range []string{dir, b} {
				os.Remove(filepath.Join(b, "report.html"))
				code, _, errs := txlab(t, "report", arg)
				if code != 0 {
					t.Fatalf("report %s: exit %d, stderr %q", arg, code, errs)
				}
				page, err := os.ReadFile(filepath.Join(b, "report.html"))
				if err != nil {
					t.Fatalf("report %s wrote no page: %v", arg, err)
				}
				if name != "schedule.json" && !bytes.Contains(page, []byte("not shown: "+name+" is larger than the")) {
					t.Errorf("report %s: the page does not name %s as not shown", arg, name)
				}
				if bytes.Contains(page, []byte("&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;")) {
					t.Errorf("report %s: the page shows the large %s", arg, name)
				}
			}
		})
	}
}

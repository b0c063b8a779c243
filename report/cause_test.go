package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// byOracle is a finding of oracle o, kind kind, under rule.
func byOracle(t *testing.T, o, kind, rule string, kinds ...string) report.Bundle {
	t.Helper()
	b := ruled(t, kind, verdict.Bug, rule, kinds...)
	b.Finding.Oracle = o
	b.Text = o + " saw it"
	return b
}

// TestWriterOneBugOneBundle: one bug found by two oracles (issue 42's
// MDEV-30835: a troc and a wss finding under the bug's rule, of other
// statement kinds) is one bundle holding both oracles' evidence and one
// summary row counting both; a repeat of either only counts. A finding
// of another rule, or of other statements under a general rule, stays a
// bundle of its own.
func TestWriterOneBugOneBundle(t *testing.T) {
	dir := t.TempDir()
	w := &report.Writer{Dir: dir}
	const rule = "mdev-30835-update-skips-uncommitted-insert"
	writes := []report.Bundle{
		byOracle(t, "troc", "incorrect-blocking", rule, "SELECT", "UPDATE"),
		byOracle(t, "wss", "tx-wss", rule, "INSERT", "UPDATE"),
		byOracle(t, "wss", "tx-wss", rule, "INSERT", "UPDATE"),
		byOracle(t, "troc", "incorrect-result", "r", "SELECT"),
		byOracle(t, "wss", "tx-wss", "r", "DELETE"),
	}
	var dirs []string
	for _, b := range writes {
		f, _, err := w.Write(b)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, f.Dir)
	}
	if dirs[1] != dirs[0] || dirs[2] != dirs[0] {
		t.Errorf("the bug's findings are in %v; want one bundle", dirs[:3])
	}
	if dirs[3] == dirs[0] || dirs[4] == dirs[3] {
		t.Errorf("other causes share a bundle: %v", dirs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d bundles, want 3", len(entries))
	}
	for _, name := range []string{"report.txt", "case.txn", "report.json", "wss-report.txt", "wss-case.txn", "wss-finding.json", "wss-graph.dot"} {
		if _, err := os.Stat(filepath.Join(dirs[0], name)); err != nil {
			t.Error(err)
		}
	}
	text, _ := os.ReadFile(filepath.Join(dirs[0], "report.txt"))
	if !strings.HasPrefix(string(text), "troc saw it") || strings.Count(string(text), "Also found by wss") != 1 {
		t.Errorf("report.txt:\n%s", text)
	}
	if wss, _ := os.ReadFile(filepath.Join(dirs[0], "wss-report.txt")); string(wss) != "wss saw it\n" {
		t.Errorf("wss-report.txt: %q", wss)
	}
	var r report.Report
	data, _ := os.ReadFile(filepath.Join(dirs[0], "report.json"))
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Finding.Oracle != "troc" || len(r.Also) != 1 || r.Also[0].Finding.Oracle != "wss" || r.Also[0].Finding.Signature == "" {
		t.Errorf("report.json: finding %+v, also %+v", r.Finding, r.Also)
	}

	sum := w.Summary()
	if len(sum) != 3 || sum[0].Count != 3 || sum[0].Cause != rule || sum[0].ByOracle["troc"] != 1 || sum[0].ByOracle["wss"] != 2 {
		t.Errorf("summary: %+v", sum)
	}
	var b strings.Builder
	w.WriteSummary(&b)
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 3 || !strings.Contains(lines[0], "3× troc incorrect-blocking") || !strings.HasSuffix(lines[0], "(troc 1, wss 2)") {
		t.Errorf("summary text:\n%s", b.String())
	}
}

// TestWriterKnownBugIsOneCause: rules of one known bug (KnownBug, as the
// corpus maps them) are one cause, whichever rule each oracle names.
func TestWriterKnownBugIsOneCause(t *testing.T) {
	w := &report.Writer{Dir: t.TempDir(), KnownBug: func(rule string) string {
		if strings.HasPrefix(rule, "tidb-57170-") {
			return "TIDB-57170"
		}
		return ""
	}}
	a, _, err := w.Write(byOracle(t, "troc", "incorrect-result", "tidb-57170-unistore-reverse-scan", "SELECT"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := w.Write(byOracle(t, "isorel", "G-single", "tidb-57170-reverse-scan-anomaly", "SELECT", "UPDATE"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Dir != b.Dir {
		t.Errorf("one known bug in %s and %s", a.Dir, b.Dir)
	}
	if sum := w.Summary(); len(sum) != 1 || sum[0].Cause != "TIDB-57170" || sum[0].Count != 2 {
		t.Errorf("summary: %+v", sum)
	}
}

// TestWriterAllowedIsACount: allowed findings without --keep-allowed are
// one line of the summary, whatever their number of signatures.
func TestWriterAllowedIsACount(t *testing.T) {
	w := &report.Writer{Dir: t.TempDir()}
	for i, kinds := range [][]string{{"SELECT"}, {"UPDATE"}, {"DELETE"}, {"SELECT"}} {
		b := ruled(t, "tx-wss", verdict.Allowed, "r", kinds...)
		if _, _, err := w.Write(b); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, _, err := w.Write(bundle(t, "tx-wss", verdict.Bug, "INSERT")); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	w.WriteSummary(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "4× allowed (documented behaviour, 3 signatures): counted, no bundle (--keep-allowed writes them)") {
		t.Errorf("summary text:\n%s", b.String())
	}
}

// TestWriterUniqueAndNoFiles: a Unique finding (a hang) gets a bundle of
// its own even when its signature repeats; a NoFiles writer (a replay)
// counts and signs its findings and writes nothing.
func TestWriterUniqueAndNoFiles(t *testing.T) {
	w := &report.Writer{Dir: t.TempDir()}
	for range 2 {
		b := byOracle(t, "executor", "hang", "")
		b.Finding.Verdict = verdict.Suspect
		b.Unique = true
		if _, dup, err := w.Write(b); err != nil || dup {
			t.Fatalf("dup %v, err %v", dup, err)
		}
	}
	if entries, _ := os.ReadDir(w.Dir); len(entries) != 2 {
		t.Errorf("%d bundles for two hangs, want 2", len(entries))
	}
	dry := &report.Writer{Dir: filepath.Join(t.TempDir(), "out"), NoFiles: true}
	f, _, err := dry.Write(bundle(t, "tx-wss", verdict.Bug, "INSERT"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Dir != "" || f.Signature == "" || len(dry.Summary()) != 1 {
		t.Errorf("finding %+v, summary %+v", f, dry.Summary())
	}
	if _, err := os.Stat(dry.Dir); !os.IsNotExist(err) {
		t.Errorf("a NoFiles writer made %s (%v)", dry.Dir, err)
	}
}

// TestMergeOneCause: two parts of a campaign (shards) that each found one
// bug, first by different oracles, merge into one bundle and one row.
func TestMergeOneCause(t *testing.T) {
	const rule = "mdev-30835-update-skips-uncommitted-insert"
	part := func(oracles ...string) string {
		t.Helper()
		dir := t.TempDir()
		w := &report.Writer{Dir: dir}
		for _, o := range oracles {
			if _, _, err := w.Write(byOracle(t, o, o+"-kind", rule, "UPDATE")); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.SaveSummary(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, b := part("troc", "wss"), part("wss")
	dst := filepath.Join(t.TempDir(), "m")
	merged, _, err := report.MergeInto(dst, []string{a, b})
	if err == nil {
		_, err = os.Stat(dst)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 1 || merged[0].Count != 3 {
		t.Errorf("merged %+v; want one row of 3", merged)
	}
	if dirs, _ := filepath.Glob(filepath.Join(dst, "0*")); len(dirs) != 1 {
		t.Errorf("merged bundles %v; want 1", dirs)
	}
}

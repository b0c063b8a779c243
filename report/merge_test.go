package report_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// TestMerge: two shards' directories merge into one bundle per signature
// with the findings summed, known findings included; a non-empty or
// source destination is refused.
func TestMerge(t *testing.T) {
	shard := func(bs ...report.Bundle) string {
		dir := t.TempDir()
		supp, _, err := report.ParseSuppressions("k", strings.NewReader("wss tx-wss DELETE read-committed bug [r]\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		w := &report.Writer{Dir: dir, Suppress: supp}
		for _, b := range bs {
			if _, _, err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.SaveSummary(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a := shard(bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "tx-wss", verdict.Bug, "DELETE"))
	b := shard(bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "stmt-wss", verdict.Allowed, "INSERT"), bundle(t, "tx-wss", verdict.Bug, "DELETE"))
	dst := filepath.Join(t.TempDir(), "merged")
	n, missing, err := report.Merge(dst, []string{a, b, filepath.Join(t.TempDir(), "none")})
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(missing) != 1 {
		t.Errorf("%d bundles copied, missing %v; want 1 (one per signature; allowed and known ones have none), the one missing source", n, missing)
	}
	sum := readSummary(t, dst)
	got := map[string]int{}
	for _, s := range sum {
		got[string(s.Verdict)+" "+s.Signature] = s.Count
		if s.Dir != "" {
			if _, err := os.Stat(filepath.Join(s.Dir, "case.txn")); err != nil {
				t.Errorf("%s: %v", s.Signature, err)
			}
			js, _ := os.ReadFile(filepath.Join(s.Dir, "report.json"))
			if !strings.Contains(string(js), s.Dir) {
				t.Errorf("%s/report.json does not name its new directory", s.Dir)
			}
		}
	}
	want := map[string]int{
		"bug wss tx-wss UPDATE read-committed bug [r]":           3,
		"allowed wss stmt-wss INSERT read-committed allowed [r]": 1,
		"known wss tx-wss DELETE read-committed bug [r]":         2,
	}
	if len(got) != len(want) {
		t.Errorf("merged summary %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d findings, want %d (summary %v)", k, got[k], v, got)
		}
	}
	if sum[0].Verdict != verdict.Bug {
		t.Errorf("bugs are not listed first: %+v", sum)
	}
	if _, _, err := report.Merge(dst, []string{a}); err == nil {
		t.Error("merging into a non-empty directory was accepted")
	}
	if _, _, err := report.Merge(a, []string{a, b}); err == nil {
		t.Error("merging into one of the sources was accepted")
	}
}

// TestMergeHostileName: a report.json whose oracle or kind holds a path
// cannot place its copy outside the merge's directory.
func TestMergeHostileName(t *testing.T) {
	src := t.TempDir()
	bad := filepath.Join(src, "0001-x")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "report.json"), []byte(`{"finding":{"oracle":"../../../escaped","kind":"/k","verdict":"bug"},"signature":"s"}`), 0o644)
	dst := filepath.Join(t.TempDir(), "m")
	if _, _, err := report.Merge(dst, []string{src}); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(dst, "*"))
	for _, d := range dirs {
		if filepath.Dir(d) != dst {
			t.Errorf("%s is outside %s", d, dst)
		}
	}
	if escaped, _ := filepath.Glob(filepath.Join(filepath.Dir(dst), "*escaped*")); len(escaped) > 0 {
		t.Errorf("a copy escaped: %v", escaped)
	}
	if len(dirs) != 2 { // the bundle and summary.json
		t.Errorf("merge wrote %v", dirs)
	}
}

// TestMergeInto: merging into a directory an earlier run wrote continues
// its numbering and keeps its entries; findings without a bundle add to
// the earlier count of their signature; merged names the merge's own.
func TestMergeInto(t *testing.T) {
	write := func(dir string, bs ...report.Bundle) {
		t.Helper()
		w := &report.Writer{Dir: dir}
		for _, b := range bs {
			if _, _, err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.SaveSummary(); err != nil {
			t.Fatal(err)
		}
	}
	dst := t.TempDir()
	write(dst, bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "stmt-wss", verdict.Allowed, "INSERT"))
	a, b := t.TempDir(), t.TempDir()
	write(a, bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "stmt-wss", verdict.Allowed, "INSERT"))
	write(b, bundle(t, "tx-wss", verdict.Bug, "UPDATE"), bundle(t, "tx-wss", verdict.Bug, "DELETE"))
	merged, missing, err := report.MergeInto(dst, []string{a, b})
	if err != nil || len(missing) != 0 {
		t.Fatal(err, missing)
	}
	got := map[string]string{}
	for _, s := range merged {
		got[fmt.Sprintf("%s %d", s.Signature, s.Count)] = filepath.Base(s.Dir)
	}
	want := map[string]string{
		"wss tx-wss UPDATE read-committed bug [r] 2":       "0002-wss-tx-wss-bug",
		"wss tx-wss DELETE read-committed bug [r] 1":       "0003-wss-tx-wss-bug",
		"wss stmt-wss INSERT read-committed allowed [r] 1": ".",
	}
	if !maps.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	sum := readSummary(t, dst)
	counts := map[string]int{}
	for _, s := range sum {
		counts[filepath.Base(s.Dir)+" "+s.Signature] += s.Count
	}
	wantCounts := map[string]int{
		"0001-wss-tx-wss-bug wss tx-wss UPDATE read-committed bug [r]": 2, // the earlier run's
		"0002-wss-tx-wss-bug wss tx-wss UPDATE read-committed bug [r]": 2,
		"0003-wss-tx-wss-bug wss tx-wss DELETE read-committed bug [r]": 1,
		". wss stmt-wss INSERT read-committed allowed [r]":             2,
	}
	if !maps.Equal(counts, wantCounts) {
		t.Errorf("summary.json %v, want %v", counts, wantCounts)
	}
}

// readSummary reads the signature counts a merge wrote into dir.
func readSummary(t *testing.T, dir string) []report.SignatureCount {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum []report.SignatureCount
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestMergeFailureLeavesNoDirectory: a merge that fails (a source's
// summary.json is damaged) removes the directory it created, so the
// same --out works once the source is fixed; a destination that existed
// before stays.
func TestMergeFailureLeavesNoDirectory(t *testing.T) {
	src := t.TempDir()
	bad := filepath.Join(src, "0001-x")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "report.json"), []byte(`{"finding":{"oracle":"wss","kind":"k","verdict":"bug"},"signature":"s"}`), 0o644)
	os.WriteFile(filepath.Join(src, report.SummaryFile), []byte(`[{"signature":`), 0o644)
	dst := filepath.Join(t.TempDir(), "m")
	if _, _, err := report.Merge(dst, []string{src}); err == nil {
		t.Fatal("a damaged summary.json merged")
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("the failed merge left %s (%v)", dst, err)
	}
	kept := t.TempDir()
	if _, _, err := report.Merge(kept, []string{src}); err == nil {
		t.Fatal("a damaged summary.json merged")
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the destination the user made is gone: %v", err)
	}
}

// TestMergeRefusesEditedCounts: a summary.json entry with a count no
// campaign writes (zero, negative) fails the merge, naming the file,
// instead of lowering the merged sum.
func TestMergeRefusesEditedCounts(t *testing.T) {
	for _, n := range []int{0, -5} {
		src := t.TempDir()
		os.WriteFile(filepath.Join(src, report.SummaryFile), []byte(fmt.Sprintf(`[{"signature":"s","verdict":"known","count":%d}]`, n)), 0o644)
		_, _, err := report.Merge(filepath.Join(t.TempDir(), "m"), []string{src})
		if err == nil || !strings.Contains(err.Error(), report.SummaryFile) {
			t.Errorf("count %d: %v", n, err)
		}
	}
}

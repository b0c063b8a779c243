package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/testcase"
)

func bundle(t *testing.T, kind string, verdict report.Verdict, kinds ...string) report.Bundle {
	return ruled(t, kind, verdict, "r", kinds...)
}

func ruled(t *testing.T, kind string, verdict report.Verdict, rule string, kinds ...string) report.Bundle {
	t.Helper()
	c, err := testcase.ParseFile(filepath.Join("testdata", "case.txn"))
	if err != nil {
		t.Fatal(err)
	}
	return report.Bundle{
		Finding:   report.Finding{Oracle: "wss", Kind: kind, Verdict: verdict, Rule: rule, Isolation: "read-committed"},
		Case:      c,
		StmtKinds: kinds,
		Text:      "plain text",
		Details:   map[string]int{"x": 1},
		Extra:     map[string][]byte{"graph.dot": []byte("digraph {}\n")},
	}
}

// TestWriterDedup writes findings with equal and different signatures and
// checks the directories, their files and the summary counts.
func TestWriterDedup(t *testing.T) {
	dir := t.TempDir()
	w := &report.Writer{Dir: dir}
	steps := []struct {
		b       report.Bundle
		wantDup bool
	}{
		{bundle(t, "tx-wss", report.Bug, "UPDATE", "INSERT"), false},
		{bundle(t, "tx-wss", report.Bug, "INSERT", "UPDATE", "UPDATE"), true}, // same kinds, other order
		{bundle(t, "stmt-wss", report.Bug, "INSERT", "UPDATE"), false},
		{bundle(t, "tx-wss", report.Allowed, "INSERT", "UPDATE"), false},
		{bundle(t, "tx-wss", report.Bug, "DELETE"), false},
		{ruled(t, "tx-wss", report.Bug, "other-rule", "INSERT", "UPDATE"), false}, // another rule: not hidden
	}
	var first string
	for i, s := range steps {
		f, dup, err := w.Write(s.b)
		if err != nil {
			t.Fatal(err)
		}
		if dup != s.wantDup {
			t.Errorf("write %d: dup %v, want %v", i, dup, s.wantDup)
		}
		if i == 0 {
			first = f.Dir
		}
		if i == 1 && f.Dir != first {
			t.Errorf("duplicate points to %s, want %s", f.Dir, first)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("%d bundle directories, want 5", len(entries))
	}
	for _, name := range []string{"case.txn", "report.txt", "report.json", "graph.dot"} {
		if _, err := os.Stat(filepath.Join(first, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := testcase.ParseFile(filepath.Join(first, "case.txn")); err != nil {
		t.Errorf("case.txn does not parse: %v", err)
	}
	var js struct {
		Finding   report.Finding `json:"finding"`
		Signature string         `json:"signature"`
	}
	data, _ := os.ReadFile(filepath.Join(first, "report.json"))
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	if js.Finding.Dir != first || js.Signature != "wss tx-wss INSERT+UPDATE read-committed bug [r]" {
		t.Errorf("report.json: %+v", js)
	}
	sum := w.Summary()
	if len(sum) != 5 || sum[0].Count != 2 || sum[1].Count != 1 {
		t.Errorf("summary %+v", sum)
	}
	var b strings.Builder
	w.WriteSummary(&b)
	if !strings.Contains(b.String(), "2× wss tx-wss INSERT+UPDATE read-committed bug [r] → ") {
		t.Errorf("summary text:\n%s", b.String())
	}

	// A second writer on the same directory continues the numbering.
	w2 := &report.Writer{Dir: dir}
	f, _, err := w2.Write(bundle(t, "tx-wss", report.Bug, "UPDATE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(f.Dir), "0006-") {
		t.Errorf("second run wrote %s, want 0006-…", f.Dir)
	}
}

func TestWriterRejectsPathInExtra(t *testing.T) {
	w := &report.Writer{Dir: t.TempDir()}
	b := bundle(t, "tx-wss", report.Bug)
	b.Extra = map[string][]byte{"../evil": nil}
	if _, _, err := w.Write(b); err == nil {
		t.Error("an extra file name with a path was accepted")
	}
	if entries, _ := os.ReadDir(w.Dir); len(entries) != 0 {
		t.Errorf("a rejected bundle left %d entries", len(entries))
	}
}

// TestWriterChecksCaseReadsBack: a case whose text does not parse back (a
// comment shaped like a header) is still written, and report.txt says so;
// a good case gets no warning. Known reports the signature afterwards.
func TestWriterChecksCaseReadsBack(t *testing.T) {
	w := &report.Writer{Dir: t.TempDir()}
	good := bundle(t, "tx-wss", report.Bug, "UPDATE")
	if w.Known(&good) {
		t.Fatal("Known before the first write")
	}
	bad := bundle(t, "stmt-wss", report.Bug, "UPDATE")
	c := *bad.Case
	c.Comments = append(c.Comments, "isolation: sometimes") // reads back as a bad header
	bad.Case = &c
	for _, tt := range []struct {
		b    report.Bundle
		warn bool
	}{{good, false}, {bad, true}} {
		f, _, err := w.Write(tt.b)
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(filepath.Join(f.Dir, "report.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(text), "case.txn does not read back"); got != tt.warn {
			t.Errorf("%s: warning %v, want %v:\n%s", f.Kind, got, tt.warn, text)
		}
		if _, err := os.Stat(filepath.Join(f.Dir, "case.txn")); err != nil {
			t.Error(err)
		}
	}
	if !w.Known(&good) {
		t.Error("Known after the write: false")
	}
}

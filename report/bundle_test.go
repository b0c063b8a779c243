package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

func bundle(t *testing.T, kind string, v verdict.Verdict, kinds ...string) report.Bundle {
	return ruled(t, kind, v, "r", kinds...)
}

func ruled(t *testing.T, kind string, v verdict.Verdict, rule string, kinds ...string) report.Bundle {
	t.Helper()
	c, err := testcase.ParseFile(filepath.Join("testdata", "case.txn"))
	if err != nil {
		t.Fatal(err)
	}
	return report.Bundle{
		Finding:   verdict.Finding{Oracle: "wss", Kind: kind, Verdict: v, Rule: rule, Isolation: "read-committed"},
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
	w := &report.Writer{Dir: dir, KeepAllowed: true}
	steps := []struct {
		b       report.Bundle
		wantDup bool
	}{
		{bundle(t, "tx-wss", verdict.Bug, "UPDATE", "INSERT"), false},
		{bundle(t, "tx-wss", verdict.Bug, "INSERT", "UPDATE", "UPDATE"), true}, // same kinds, other order
		{bundle(t, "stmt-wss", verdict.Bug, "INSERT", "UPDATE"), true},         // same rule, statements and level: one cause
		{bundle(t, "tx-wss", verdict.Allowed, "INSERT", "UPDATE"), false},
		{bundle(t, "tx-wss", verdict.Bug, "DELETE"), false},
		{ruled(t, "tx-wss", verdict.Bug, "other-rule", "INSERT", "UPDATE"), false}, // another rule: not hidden
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
	if len(entries) != 4 {
		t.Errorf("%d bundle directories, want 4", len(entries))
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
		Finding   verdict.Finding `json:"finding"`
		Signature string          `json:"signature"`
	}
	data, _ := os.ReadFile(filepath.Join(first, "report.json"))
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	if js.Finding.Dir != first || js.Signature != "wss tx-wss INSERT+UPDATE read-committed bug [r]" {
		t.Errorf("report.json: %+v", js)
	}
	sum := w.Summary()
	if len(sum) != 4 || sum[0].Count != 3 || sum[1].Count != 1 {
		t.Errorf("summary %+v", sum)
	}
	var b strings.Builder
	w.WriteSummary(&b)
	if !strings.Contains(b.String(), "3× wss tx-wss INSERT+UPDATE read-committed bug [r] → ") {
		t.Errorf("summary text:\n%s", b.String())
	}

	// A second writer on the same directory continues the numbering.
	w2 := &report.Writer{Dir: dir}
	f, _, err := w2.Write(bundle(t, "tx-wss", verdict.Bug, "UPDATE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(f.Dir), "0005-") {
		t.Errorf("second run wrote %s, want 0005-…", f.Dir)
	}
}

func TestWriterRejectsPathInExtra(t *testing.T) {
	w := &report.Writer{Dir: t.TempDir()}
	b := bundle(t, "tx-wss", verdict.Bug)
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
	good := bundle(t, "tx-wss", verdict.Bug, "UPDATE")
	if w.Known(&good) {
		t.Fatal("Known before the first write")
	}
	bad := ruled(t, "stmt-wss", verdict.Bug, "r2", "UPDATE") // another cause
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

// TestWriterRecordsTarget: a writer given the exact target (the --db spec,
// the server's DBMS and full version, the throwaway server's settings)
// writes it into report.json's db and a target line of report.txt, after
// the oracle's headline; a writer without one writes neither.
func TestWriterRecordsTarget(t *testing.T) {
	for _, tt := range []struct {
		name string
		db   *report.DB
		text string // the bundle's Text
		want string // report.txt
	}{
		{"versioned", &report.DB{Spec: "postgres@18", DBMS: "postgres", Version: "18.4"},
			"WSS on postgres 18.4\nverdict: bug\n",
			"WSS on postgres 18.4\ntarget: postgres@18 (postgres 18.4)\nverdict: bug\n"},
		{"build dir and settings", &report.DB{Spec: "postgres@/usr/lib/postgresql/15/bin", DBMS: "postgres",
			Version: "15.18 (Debian 15.18-0+deb12u1)", Settings: []string{"max_connections=200", "fsync=off"}},
			"headline only",
			"headline only\ntarget: postgres@/usr/lib/postgresql/15/bin (postgres 15.18 (Debian 15.18-0+deb12u1)), --set max_connections=200 --set fsync=off\n"},
		{"no text", &report.DB{Spec: "tidb", DBMS: "tidb", Version: "8.0.11-TiDB-v8.5.6"},
			"", "target: tidb (tidb 8.0.11-TiDB-v8.5.6)\n"},
		{"no target", nil, "WSS on sqlite\n", "WSS on sqlite\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &report.Writer{Dir: t.TempDir(), Target: "postgres 18.4", DB: tt.db}
			b := bundle(t, "tx-wss", verdict.Bug, "UPDATE")
			b.Text = tt.text
			f, _, err := w.Write(b)
			if err != nil {
				t.Fatal(err)
			}
			text, err := os.ReadFile(filepath.Join(f.Dir, "report.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if string(text) != tt.want {
				t.Errorf("report.txt:\n%s\nwant:\n%s", text, tt.want)
			}
			data, err := os.ReadFile(filepath.Join(f.Dir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var js report.Report
			if err := json.Unmarshal(data, &js); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.db == nil && js.DB != nil:
				t.Errorf("report.json db %+v, want none", js.DB)
			case tt.db != nil && (js.DB == nil || js.DB.Spec != tt.db.Spec || js.DB.DBMS != tt.db.DBMS ||
				js.DB.Version != tt.db.Version || strings.Join(js.DB.Settings, " ") != strings.Join(tt.db.Settings, " ")):
				t.Errorf("report.json db %+v, want %+v\n%s", js.DB, tt.db, data)
			}
			if tt.db != nil && !strings.Contains(string(data), `"spec": "`+tt.db.Spec+`"`) {
				t.Errorf("report.json does not name the spec %q:\n%s", tt.db.Spec, data)
			}
		})
	}
}

// TestWriterAllowed: without KeepAllowed an allowed finding is counted and
// gets no bundle; a bug beside it does.
func TestWriterAllowed(t *testing.T) {
	dir := t.TempDir()
	w := &report.Writer{Dir: dir}
	for range 2 {
		f, _, err := w.Write(bundle(t, "tx-wss", verdict.Allowed, "UPDATE"))
		if err != nil || f.Dir != "" || f.Verdict != verdict.Allowed {
			t.Fatalf("allowed finding %+v, %v: want no bundle", f, err)
		}
	}
	if f, _, err := w.Write(bundle(t, "tx-wss", verdict.Bug, "UPDATE")); err != nil || f.Dir == "" {
		t.Fatalf("bug finding %+v, %v: want a bundle", f, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d directories, want the bug's only", len(entries))
	}
	sum := w.Summary()
	if len(sum) != 2 || sum[0].Verdict != verdict.Allowed || sum[0].Count != 2 || sum[0].Dir != "" {
		t.Errorf("summary %+v: want the allowed signature counted twice without a directory", sum)
	}
}

// TestSignatureOneCause: statement kinds stay out of the signature of a
// finding whose rule names a tracker's issue, or whose oracle says its kind
// and rule name the cause (IsoRel); they stay in for a generic rule.
func TestSignatureOneCause(t *testing.T) {
	for _, c := range []struct {
		b    report.Bundle
		want string
	}{
		{ruled(t, "tx-wss", verdict.Bug, "wss-fcrfs", "UPDATE", "INSERT"), "wss tx-wss INSERT+UPDATE read-committed bug [wss-fcrfs]"},
		{ruled(t, "tx-wss", verdict.Bug, "mdev-30835-update-skips-uncommitted-insert", "UPDATE", "INSERT"), "wss tx-wss read-committed bug [mdev-30835-update-skips-uncommitted-insert]"},
		{ruled(t, "tx-wss", verdict.Allowed, "innodb-rc-no-gap-locks", "UPDATE"), "wss tx-wss UPDATE read-committed allowed [innodb-rc-no-gap-locks]"},
		{func() report.Bundle {
			b := ruled(t, "G-single", verdict.Bug, "postgres-repeatable-read-forbids-G-single", "SELECT", "UPDATE")
			b.Finding.Oracle, b.OneCause = "isorel", true
			return b
		}(), "isorel G-single read-committed bug [postgres-repeatable-read-forbids-G-single]"},
	} {
		if got := c.b.Signature(); got != c.want {
			t.Errorf("signature %q, want %q", got, c.want)
		}
	}
}

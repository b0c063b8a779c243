package infer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
)

type wantFinding struct {
	Class   string  `json:"class"`
	Verdict string  `json:"verdict"`
	Txns    []int64 `json:"txns"`
}

type expectCase struct {
	Name     string            `json:"name"`
	History  string            `json:"history"`
	DBMS     string            `json:"dbms"`
	Level    string            `json:"level"`
	Settings map[string]string `json:"settings"`
	Model    string            `json:"model"`
	Strict   bool              `json:"strict"`
	Excused  int               `json:"excused"`
	Want     []wantFinding     `json:"want"`
}

func TestCheck(t *testing.T) {
	b, err := os.ReadFile("testdata/expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []expectCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			h, err := history.ReadFile(filepath.Join("testdata", c.History))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(h, Options{DBMS: c.DBMS, Level: target.Level(c.Level), Settings: c.Settings, Model: semantics.Model(c.Model), Strict: c.Strict})
			if err != nil {
				t.Fatal(err)
			}
			var got []wantFinding
			for _, f := range res.Findings {
				txns := slices.Clone(f.Txns)
				slices.Sort(txns)
				got = append(got, wantFinding{f.Class, string(f.Verdict), slices.Compact(txns)})
				if f.Rule.Name == "" || f.Rule.Text == "" || f.Text == "" {
					t.Errorf("%s: empty rule or text: %+v", f.Class, f)
				}
				t.Logf("%s %s: %s\n  %s", f.Class, f.Verdict, f.Rule.Name, f.Text)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.Want) {
				t.Errorf("findings = %v, want %v", got, c.Want)
			}
			if len(res.Excused) != c.Excused {
				t.Errorf("excused = %d, want %d", len(res.Excused), c.Excused)
			}
		})
	}
}

// TestExplain pins the plain-English explanation and the graph of a write
// skew.
// oneFinding checks a history file at PostgreSQL's repeatable read, which
// must give exactly one finding.
func oneFinding(t *testing.T, file string) (*Result, Finding) {
	t.Helper()
	h, err := history.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(h, Options{DBMS: "postgres", Level: target.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("findings: %+v", res.Findings)
	}
	return res, res.Findings[0]
}

func TestExplain(t *testing.T) {
	_, f := oneFinding(t, "testdata/writeskew.jsonl")
	want := "T1 must come before T2, because T2 overwrote r2 after T1 read it (T1 read it as the setup left it). However, T2 must come before T1, because T1 overwrote r1 after T2 read it (T2 read it as the setup left it): a cycle, so no serial order of them gives this."
	if f.Text != want {
		t.Errorf("text:\n got %s\nwant %s", f.Text, want)
	}
	if f.Rule.Name != "postgres-repeatable-read-permits-write-skew" || f.Rule.Source == "" ||
		f.Rule.Text != "write-skew is outside the textbook repeatable-read, but postgres repeatable-read permits it: it forbids only G0, G1a, G1b, G1c, lost-update, G-single, G-nonadjacent, G-single-predicate, G-nonadjacent-predicate" {
		t.Errorf("rule: %+v", f.Rule)
	}
	for _, s := range []string{`T1 -> T2 [label="rw r2"]`, `T2 -> T1 [label="rw r1"]`, `UPDATE t SET v = v - 100 WHERE id = 1`} {
		if !bytes.Contains(f.Dot, []byte(s)) {
			t.Errorf("dot lacks %q:\n%s", s, f.Dot)
		}
	}
	if got := strings.Join(f.StmtKinds, ","); got != "SELECT,UPDATE" {
		t.Errorf("stmt kinds = %s", got)
	}
}

// TestExplainNamesRows: where the history names its rows by their values,
// the explanation and the graph say t(id=2), not r2; two rows with one name
// (a key deleted and inserted again) keep their rowIds apart; a row the
// history does not name keeps its rowId.
func TestExplainNamesRows(t *testing.T) {
	res, f := oneFinding(t, "testdata/writeskew-named.jsonl")
	want := "T1 must come before T2, because T2 overwrote t(id=2) after T1 read it (T1 read it as the setup left it). However, T2 must come before T1, because T1 overwrote t(id=1) r1 after T2 read it (T2 read it as the setup left it): a cycle, so no serial order of them gives this."
	if f.Text != want {
		t.Errorf("text:\n got %s\nwant %s", f.Text, want)
	}
	for _, s := range []string{`T1 -> T2 [label="rw t(id=2)"]`, `T2 -> T1 [label="rw t(id=1) r1"]`} {
		if !bytes.Contains(f.Dot, []byte(s)) {
			t.Errorf("dot lacks %q:\n%s", s, f.Dot)
		}
	}
	for id, want := range map[string]string{"r1": "t(id=1) r1", "r2": "t(id=2)", "r3": "t(id=1) r3", "r9": "r9"} {
		if got := res.Deps.RowName(id); got != want {
			t.Errorf("RowName(%s) = %q, want %q", id, got, want)
		}
	}
}

// TestDeleteRules checks IsoRel Fig. 4: a DELETE's pre-read gives ww from
// the last writer and rw from a reader of the same version.
func TestDeleteRules(t *testing.T) {
	h := &history.History{Txns: []history.Txn{
		{ID: 1, Session: 1, Stmts: []history.Stmt{
			{Kind: "UPDATE"},
			{Kind: "SELECT", Reads: []history.Version{{Row: "r1", WList: "T0,T1"}, {Row: "r2", WList: "T0,T1"}}},
		}},
		{ID: 2, Session: 2, Stmts: []history.Stmt{
			{Kind: "DELETE", Locking: true, Deleted: []history.Version{{Row: "r1", WList: "T0,T1"}}},
		}},
	}}
	d, err := Infer(h)
	if err != nil {
		t.Fatal(err)
	}
	got := edgeSet(d)
	for _, want := range []string{"ww T0->T1 r1", "ww T1->T2 r1", "rw T1->T2 r1", "ww T0->T1 r2"} {
		if !got[want] {
			t.Errorf("missing %s in %v", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("edges %v, want exactly 4", got)
	}
}

func edgeSet(d *Deps) map[string]bool {
	s := make(map[string]bool)
	for _, e := range d.Edges {
		s[fmt.Sprintf("%s T%d->T%d %s", e.Kind, e.From, e.To, e.Row)] = true
	}
	return s
}

// TestInferMatchesPairwise: the trie-based inference yields exactly the
// edge set of the paper's all-pairs loop, on serial, interleaved, aborting
// and inconsistent (forking) random histories.
func TestInferMatchesPairwise(t *testing.T) {
	shapes := map[string]genOptions{
		"serial":      {Stmts: 300, Rows: 6, Sessions: 3, FullRead: 7},
		"interleaved": {Stmts: 300, Rows: 6, Sessions: 4, Stale: 0.4, Fail: 0.1, FullRead: 5},
		"forking":     {Stmts: 300, Rows: 4, Sessions: 4, Stale: 0.3, Fail: 0.1, Fork: 0.2, FullRead: 5},
		"no-reread":   {Stmts: 300, Rows: 10, Sessions: 2, Stale: 0.5},
	}
	for name, o := range shapes {
		for seed := uint64(1); seed <= 30; seed++ {
			h := genHistory(seed, o)
			a, err := Infer(h)
			if err != nil {
				t.Fatal(err)
			}
			b, err := InferPairwise(h)
			if err != nil {
				t.Fatal(err)
			}
			ea, eb := edgeSet(a), edgeSet(b)
			if len(ea) == 0 {
				t.Fatalf("%s seed %d: no edges", name, seed)
			}
			for k := range ea {
				if !eb[k] {
					t.Errorf("%s seed %d: Infer has %s, pairwise does not", name, seed, k)
				}
			}
			for k := range eb {
				if !ea[k] {
					t.Errorf("%s seed %d: pairwise has %s, Infer does not", name, seed, k)
				}
			}
			if len(a.Edges) == len(b.Edges) {
				for i := range a.Edges {
					if a.Edges[i].Locking != b.Edges[i].Locking {
						t.Errorf("%s seed %d: locking differs on %+v vs %+v", name, seed, a.Edges[i], b.Edges[i])
					}
				}
			}
			if _, err := Check(h, Options{DBMS: "postgres"}); err != nil {
				t.Fatal(err)
			}
			if (name == "forking") != (len(a.Forks) > 0) && seed == 1 {
				t.Errorf("%s seed %d: forks = %d", name, seed, len(a.Forks))
			}
		}
	}
}

// FuzzCheck: any history the reader accepts must infer without panicking,
// and Infer and InferPairwise must agree on it.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := history.Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		a, err := Infer(h)
		if err != nil {
			return
		}
		p, err := InferPairwise(h)
		if err != nil {
			t.Fatalf("pairwise failed where Infer did not: %v", err)
		}
		ea, ep := edgeSet(a), edgeSet(p)
		if fmt.Sprint(ea) != fmt.Sprint(ep) {
			t.Fatalf("edge sets differ:\n%v\n%v", ea, ep)
		}
		_, _ = Check(h, Options{DBMS: "postgres", Level: target.Serializable, Strict: true})
	})
}

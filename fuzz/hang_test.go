package fuzz_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// hangingOracle has the campaign run a case that hangs on SQLite:
// connection 1 leaves its transaction open, holding the write lock, and
// connection 2's INSERT is refused (busy) until the case's bound.
type hangingOracle struct{ t *testing.T }

func (o hangingOracle) Name() string      { return "hanging" }
func (o hangingOracle) JudgesPlain() bool { return true }
func (o hangingOracle) Check(context.Context, target.Target, *testcase.Case, *executor.Result, executor.Options) (*oracle.Judgement, error) {
	return &oracle.Judgement{}, nil
}
func (o hangingOracle) Group(uint64, gen.Config) []*testcase.Case {
	c, err := testcase.ParseString("hang.txn", "CREATE TABLE t (id INT PRIMARY KEY);\n1> BEGIN;\n1> INSERT INTO t VALUES (1);\n2> INSERT INTO t VALUES (2);\n")
	if err != nil {
		o.t.Fatal(err)
	}
	return []*testcase.Case{c}
}

// TestHangIsABundle: every case of a campaign that hangs is saved as a
// bundle of its own, a finding of kind hang with verdict suspect (no bug),
// which -v names, the summary lists and txlab run replays without an
// oracle flag.
func TestHangIsABundle(t *testing.T) {
	var log bytes.Buffer
	w := &report.Writer{Dir: t.TempDir()}
	s, err := fuzz.Run(context.Background(), []target.Target{connecttest.Target(t, "sqlite")}, fuzz.Options{
		Seed: 1, Cases: 2, Oracles: [][]oracle.CaseOracle{{hangingOracle{t}}}, Writer: w, Log: &log,
		Exec: executor.Options{HangTimeout: 300 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Hangs != 2 || len(s.HangBundles) != 2 || s.HangBundles[0] == s.HangBundles[1] {
		t.Fatalf("hangs %d, bundles %v; want 2 of each", s.Hangs, s.HangBundles)
	}
	if n := verdict.CountBugs(s.Findings); n != 0 {
		t.Errorf("%d bug findings from hangs", n)
	}
	for _, dir := range s.HangBundles {
		if !strings.Contains(log.String(), "HANG: did not finish within --hang-timeout 300ms → "+dir) {
			t.Errorf("-v does not name %s:\n%s", dir, log.String())
		}
		var r report.Report
		data, err := os.ReadFile(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		if f := r.Finding; f.Kind != "hang" || f.Verdict != verdict.Suspect || !strings.Contains(f.Summary, "connection 2's INSERT INTO t VALUES (2)") {
			t.Errorf("finding %+v", f)
		}
		if strings.Contains(r.Replay, "--oracle") {
			t.Errorf("replay %q names an oracle", r.Replay)
		}
		if _, err := testcase.ParseFile(filepath.Join(dir, "case.txn")); err != nil {
			t.Error(err)
		}
		text, _ := os.ReadFile(filepath.Join(dir, "report.txt"))
		if !strings.HasPrefix(string(text), "HANG on sqlite") || !strings.Contains(string(text), "2> INSERT INTO t VALUES (2);") {
			t.Errorf("report.txt:\n%s", text)
		}
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "hangs         2 cases did not finish within --hang-timeout (not judged); txlab run replays each: "+s.HangBundles[0]) {
		t.Errorf("summary:\n%s", b.String())
	}
}

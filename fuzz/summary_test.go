package fuzz

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// TestSeedJSON: a seed above 2^53 comes out as a string that reads back
// exactly (jq and JavaScript round such numbers).
func TestSeedJSON(t *testing.T) {
	s := Summary{Seed: 4179549059931332354}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"seed":"4179549059931332354"`) {
		t.Fatalf("seed in JSON: %s", b)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back.Seed != s.Seed {
		t.Fatalf("read back %d (%v), want %d", back.Seed, err, s.Seed)
	}
}

// TestDominantKnownBug: a campaign whose bugs are mostly one known bug
// names it (and the summary says how to suppress it); a mix does not.
func TestDominantKnownBug(t *testing.T) {
	known := verdict.Finding{Oracle: "troc", Verdict: verdict.Bug, Rule: "mdev-30835-update-skips-uncommitted-insert"}
	other := verdict.Finding{Oracle: "wss", Verdict: verdict.Bug, Rule: "wss-fcrfs"}
	allowed := verdict.Finding{Oracle: "wss", Verdict: verdict.Allowed, Rule: "innodb-rc-no-gap-locks"}
	s := &Summary{Findings: []verdict.Finding{known, known, other, allowed, allowed, allowed}}
	if id, n, total := s.DominantKnownBug(); id != "MDEV-30835" || n != 2 || total != 3 {
		t.Errorf("DominantKnownBug = %q %d of %d, want MDEV-30835 2 of 3", id, n, total)
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "2 of 3 bug findings are MDEV-30835") || !strings.Contains(b.String(), "with the line MDEV-30835") {
		t.Errorf("the summary gives no --suppress hint:\n%s", b.String())
	}
	s.Findings = []verdict.Finding{known, other, other}
	if id, _, _ := s.DominantKnownBug(); id != "" {
		t.Errorf("a campaign of mostly new findings got the hint %q", id)
	}
}

// TestDominantKnownBugNamesTheRulesBug: a rule two corpus bugs' cases
// name (TIDB-30361's and TIDB-57170's both show
// tidb-57170-unistore-reverse-scan) is the bug it is named after: the
// hint names TIDB-57170, as issue 42 found it did not.
func TestDominantKnownBugNamesTheRulesBug(t *testing.T) {
	f := verdict.Finding{Oracle: "troc", Verdict: verdict.Bug, Rule: "tidb-57170-unistore-reverse-scan"}
	s := &Summary{Findings: []verdict.Finding{f, f, f, {Oracle: "wss", Verdict: verdict.Bug, Rule: "wss-fcrfs"}}}
	if id, n, total := s.DominantKnownBug(); id != "TIDB-57170" || n != 3 || total != 4 {
		t.Errorf("DominantKnownBug = %q %d of %d, want TIDB-57170 3 of 4", id, n, total)
	}
}

// TestProgressLineFits: the live line stays short enough for an 80-column
// terminal beside the spinner, the count and the elapsed time (about 25
// columns), however large the counts grow.
func TestProgressLineFits(t *testing.T) {
	s := &Summary{Oracles: []string{"wss", "isorel", "troc"}, ByOracle: map[string]*OracleCounts{
		"wss": {Bugs: 1234, Known: 99999}, "isorel": {}, "troc": {Bugs: 5}}, Cases: 12345678, Blocked: 98765432}
	for range 123456 {
		s.Findings = append(s.Findings, verdict.Finding{})
	}
	line := s.progressLine(10*time.Hour, 0)
	if n := len([]rune(line)); n > 80-25 {
		t.Errorf("progress line of %d columns: %q", n, line)
	}
	if !strings.Contains(line, "1239 bugs") || !strings.Contains(line, "99999 known") {
		t.Errorf("progress line %q: want the bugs and known counts", line)
	}
	s.Free = true
	if n := len([]rune(s.progressLine(10*time.Hour, 0))); n > 80-25 {
		t.Errorf("free-running progress line of %d columns", n)
	}
}

// TestJudgedToEnd: each oracle's cases are counted as judged to the end or
// by why not, in the JSON and the text summary, commonest reason first; a
// judging that ran out of time counts as a reason too.
func TestJudgedToEnd(t *testing.T) {
	s := &Summary{Oracles: []string{"troc", "wss"}, ByOracle: map[string]*OracleCounts{"troc": {}, "wss": {}}, ErrorsByClass: map[string]int{}}
	add := func(troc string) {
		out := &oracle.Outcome{Judged: []string{"troc", "wss"}}
		if troc != "" {
			out.Undecided = map[string]string{"troc": troc}
		}
		s.addCase(&testcase.Case{}, out, nil)
	}
	for _, why := range []string{"", "", "", "open rows: UPDATE", "statements released together", "open rows: UPDATE"} {
		add(why)
	}
	s.addCase(&testcase.Case{}, &oracle.Outcome{Judged: []string{"wss"}, JudgeTimeout: "troc"}, nil)
	tr := s.ByOracle["troc"]
	if tr.Judged != 6 || tr.JudgedToEnd != 3 || tr.Undecided["open rows: UPDATE"] != 2 || tr.Undecided["statements released together"] != 1 || tr.Undecided["judging ran out of time"] != 1 {
		t.Errorf("troc counts %+v", tr)
	}
	if w := s.ByOracle["wss"]; w.Judged != 7 || w.JudgedToEnd != 7 || w.Undecided != nil {
		t.Errorf("wss counts %+v, want 7 judged, all to the end", w)
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"judged_to_end":3,"undecided":{"judging ran out of time":1,"open rows: UPDATE":2,"statements released together":1}`) {
		t.Errorf("JSON: %s", b)
	}
	var text strings.Builder
	s.WriteText(&text)
	if !strings.Contains(text.String(), "troc 3 of 6 (50.0%); undecided: 2 open rows: UPDATE, 1 judging ran out of time, 1 statements released together") ||
		!strings.Contains(text.String(), "wss 7 of 7 (100.0%)\n") {
		t.Errorf("text summary:\n%s", text.String())
	}
}

// TestFeaturesCounted: the summary counts the cases that use each feature,
// in the JSON and in the text.
func TestFeaturesCounted(t *testing.T) {
	s := &Summary{ByOracle: map[string]*OracleCounts{}}
	for _, txt := range []string{
		"CREATE TABLE t (a INT CHECK (a > 0));\n1> BEGIN;\n1> SAVEPOINT s;\n1> ROLLBACK TO s;\n1> COMMIT;\n",
		"CREATE TABLE t (a INT);\n1> SELECT * FROM t FOR UPDATE SKIP LOCKED;\n",
		"CREATE TABLE t (a INT CHECK (a > 0));\n1> SELECT * FROM t;\n",
	} {
		c, err := testcase.ParseString("c", txt)
		if err != nil {
			t.Fatal(err)
		}
		s.addCase(c, nil, nil)
	}
	want := map[string]int{"check-constraint": 2, "savepoint": 1, "rollback-to-savepoint": 1, "skip-locked": 1}
	if !maps.Equal(s.Features, want) {
		t.Errorf("features %v, want %v", s.Features, want)
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "features      savepoint 1, rollback-to-savepoint 1, skip-locked 1, check-constraint 2 (cases)") {
		t.Errorf("text summary lacks the features line:\n%s", b.String())
	}
}

// TestSetupFailureExamples: a case whose setup failed is counted, and the
// first few say why, in the JSON and in the text.
func TestSetupFailureExamples(t *testing.T) {
	s := &Summary{ByOracle: map[string]*OracleCounts{}}
	for i := range 7 {
		s.addCase(&testcase.Case{Name: fmt.Sprintf("case-%d", i)}, nil, fmt.Errorf("setup statement 2 failed: boom %d", i))
	}
	s.addCase(&testcase.Case{Name: "case-ok"}, nil, nil)
	if s.SetupFailures != 7 || len(s.SetupExamples) != maxInvalidExamples || s.SetupExamples[0] != "case-0: setup statement 2 failed: boom 0" {
		t.Fatalf("%d failures, examples %q", s.SetupFailures, s.SetupExamples)
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "setup failed  7 cases") || !strings.Contains(b.String(), "e.g. case-4: setup statement 2 failed: boom 4") {
		t.Errorf("text summary:\n%s", b.String())
	}
}

// TestMerge: the summary of a campaign's parts is the sum of theirs, read
// back from the JSON each worker process sends, with the rates over the
// campaign's time and an error of one part the campaign's.
func TestMerge(t *testing.T) {
	part := func(cases int, undecided string, findings ...verdict.Finding) *Summary {
		s := newSummary(target.Info{DBMS: "sqlite", Version: "3.0"}, Options{Seed: 1 << 60}, 2)
		s.Oracles = []string{"troc", "wss"}
		s.ByOracle = map[string]*OracleCounts{"troc": {}, "wss": {}}
		for i := range cases {
			c, err := testcase.ParseString("c", "CREATE TABLE t (a INT CHECK (a > 0));\n1> BEGIN;\n1> SAVEPOINT s;\n1> COMMIT;\n2> SELECT * FROM t;\n")
			if err != nil {
				t.Fatal(err)
			}
			c.Name = fmt.Sprintf("case-%d-%d", cases, i)
			out := &oracle.Outcome{Judged: []string{"troc", "wss"}, Result: &executor.Result{Events: []executor.Event{
				{Conn: 1, SQL: "SELEC", Status: executor.StatusOK, Error: &target.Error{Class: target.ClassSyntax}},
				{Conn: 2, Status: executor.StatusBlocked},
			}}}
			if undecided != "" {
				out.Undecided = map[string]string{"troc": undecided}
			}
			if i == 0 {
				out.Findings = findings
			}
			s.addCase(c, out, fmt.Errorf("setup %d", i))
		}
		s.Rounds = cases
		s.finish(time.Duration(cases)*time.Second, nil, false)
		// What the parent reads is the JSON the worker wrote.
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Summary
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		return &back
	}
	bug := verdict.Finding{Oracle: "troc", Verdict: verdict.Bug, Signature: "troc x"}
	known := verdict.Finding{Oracle: "wss", Verdict: verdict.Known, Signature: "wss y"}
	a, b := part(3, "open rows: UPDATE", bug), part(4, "", bug, known)
	s := Merge(10*time.Second, a, b)
	if s.Cases != 7 || s.Rounds != 7 || s.Transactions != 14 || s.Statements != 7 || s.Blocked != 7 || s.InvalidCount != 7 ||
		s.ErrorsByClass["syntax"] != 7 || s.SetupFailures != 7 || s.Features["savepoint"] != 7 || s.Features["check-constraint"] != 7 {
		t.Errorf("counts: cases %d rounds %d txns %d stmts %d blocked %d invalid %d errors %v setup %d features %v",
			s.Cases, s.Rounds, s.Transactions, s.Statements, s.Blocked, s.InvalidCount, s.ErrorsByClass, s.SetupFailures, s.Features)
	}
	if len(s.SetupExamples) != maxInvalidExamples || len(s.InvalidExamples) != maxInvalidExamples || s.SetupExamples[0] != "case-3-0: setup 0" {
		t.Errorf("examples: %q, %q", s.SetupExamples, s.InvalidExamples)
	}
	tr, ws := s.ByOracle["troc"], s.ByOracle["wss"]
	if tr.Judged != 7 || tr.JudgedToEnd != 4 || tr.Undecided["open rows: UPDATE"] != 3 || tr.Findings != 2 || tr.Bugs != 2 || ws.Known != 1 || ws.Findings != 1 {
		t.Errorf("by oracle: troc %+v, wss %+v", tr, ws)
	}
	if len(s.Findings) != 3 || verdict.CountBugs(s.Findings) != 2 {
		t.Errorf("findings %+v", s.Findings)
	}
	if s.Seed != 1<<60 || s.Target != "sqlite 3.0" || s.Workers != 4 || s.Procs != 2 || s.Shard != "" || !slices.Equal(s.Oracles, []string{"troc", "wss"}) {
		t.Errorf("seed %d target %q workers %d procs %d shard %q oracles %v", s.Seed, s.Target, s.Workers, s.Procs, s.Shard, s.Oracles)
	}
	if s.ElapsedSeconds != 10 || s.CasesPerSecond != 0.7 || s.InvalidRatio != 1 || s.Error != "" || s.Interrupted {
		t.Errorf("elapsed %v, %v cases/s, invalid ratio %v, error %q, interrupted %v", s.ElapsedSeconds, s.CasesPerSecond, s.InvalidRatio, s.Error, s.Interrupted)
	}
	if got := Merge(0, a, b).ElapsedSeconds; got != 4 {
		t.Errorf("elapsed %v without the campaign's time, want the longest part's 4", got)
	}
	var text strings.Builder
	s.WriteText(&text)
	if !strings.Contains(text.String(), ", 4 workers in 2 processes\n") || !strings.Contains(text.String(), "findings      3 (2 bugs, 1 known)") {
		t.Errorf("text summary:\n%s", text.String())
	}

	// One part interrupted (Ctrl-C, or stopped because another failed),
	// one failed: the campaign failed.
	a.Interrupted = true
	if s := Merge(0, a, b); !s.Interrupted || s.Error != "" {
		t.Errorf("interrupted part: interrupted %v, error %q", s.Interrupted, s.Error)
	}
	b.Error = "worker 1: disk full"
	if s := Merge(0, a, b); s.Interrupted || s.Error != "worker 1: disk full" {
		t.Errorf("failed part: interrupted %v, error %q", s.Interrupted, s.Error)
	}
}

// TestProgressAdd: the parts' progress lines add up to the campaign's, and
// the reduction shown is the one running longest.
func TestProgressAdd(t *testing.T) {
	a := Progress{Judging: true, Cases: 10, Blocked: 2, Findings: 3, Bugs: 1, Reducing: "0001-a", ReducingFor: 5 * time.Second}
	b := Progress{Judging: true, Cases: 20, Blocked: 1, Findings: 2, Reducing: "0002-b", ReducingFor: 9 * time.Second}
	got := a.Add(b).Line(10 * time.Second)
	if want := "30 cases (3.0/s) · 1 bug · 4 other · 3 blocked · reducing 0002… 9s"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if got := (Progress{}).Add(a).Line(10 * time.Second); !strings.Contains(got, "reducing 0001… 5s") {
		t.Errorf("line %q", got)
	}
}

// TestMergeSumsEveryCount: every integer count of a Summary (and of its
// per-oracle counts) is summed by Merge, so that a count added to Summary
// later cannot be left out of a --procs campaign's summary unnoticed.
func TestMergeSumsEveryCount(t *testing.T) {
	part := func() *Summary {
		s := &Summary{ByOracle: map[string]*OracleCounts{"troc": {}}}
		for _, v := range []reflect.Value{reflect.ValueOf(s).Elem(), reflect.ValueOf(s.ByOracle["troc"]).Elem()} {
			for i := range v.NumField() {
				if f := v.Field(i); f.Kind() == reflect.Int {
					f.SetInt(1)
				}
			}
		}
		return s
	}
	s := Merge(time.Second, part(), part())
	for _, v := range []reflect.Value{reflect.ValueOf(s).Elem(), reflect.ValueOf(s.ByOracle["troc"]).Elem()} {
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.Int && f.Int() != 2 {
				t.Errorf("%s.%s = %d after merging two parts of 1: not summed", v.Type().Name(), v.Type().Field(i).Name, f.Int())
			}
		}
	}
}

package bugs

import (
	"strings"
	"testing"
)

// TestFailure: how a run of several targets ends: code 2 is Failure's,
// 1 CheckRecorded's (with --check).
func TestFailure(t *testing.T) {
	clean := func() []*TargetRun {
		runs := matrixRuns()[:3]
		runs[1].Results[0].Levels[0].Changed = false
		runs[2].Results[1].Levels = runs[2].Results[1].Levels[:1]
		return runs
	}
	changed := func() []*TargetRun {
		r := clean()
		r[1].Results[0].Levels[0].Changed = true
		return r
	}
	for _, tt := range []struct {
		name  string
		runs  func() []*TargetRun
		check bool
		code  int
		msg   string
	}{
		{"as recorded", clean, true, 0, ""},
		{"changed without --check", changed, false, 0, ""},
		{"changed with --check", changed, true, 1, "1 bug × level status(es) differ"},
		{"a bug that could not run", func() []*TargetRun { return matrixRuns()[:3] }, false, 2, "MDEV-26643 at serializable on mariadb could not run"},
		{"a target that did not start", func() []*TargetRun { return matrixRuns()[:4] }, true, 2, "1 of 4 targets did not finish: tidb: tidb: build failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs := tt.runs()
			code, err := 0, Failure(runs, true)
			if err != nil {
				code = 2
			} else if err = CheckRecorded(runs); tt.check && err != nil {
				code = 1
			}
			if code != tt.code || tt.msg != "" && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("exit %d (%v), want %d with %q", code, err, tt.code, tt.msg)
			}
		})
	}
}

// TestSelect: the entries of the ids given, in their order, whatever their
// case; the ids none has are missing.
func TestSelect(t *testing.T) {
	es := []Entry{{Bug: "A", DBMS: "x"}, {Bug: "B"}, {Bug: "A", DBMS: "y"}}
	got, missing := Select(es, []string{"b", "C", "a"})
	if len(got) != 3 || got[0].Bug != "B" || got[1].DBMS != "x" || got[2].DBMS != "y" || len(missing) != 1 || missing[0] != "C" {
		t.Errorf("chosen %v, missing %v", got, missing)
	}
}

// TestUnrun: an id no target's corpus has is said with its DBMS.
func TestUnrun(t *testing.T) {
	runs := []*TargetRun{{Spec: "sqlite", Missing: []string{"MDEV-26643"}}, {Spec: "sqlite", Missing: []string{"MDEV-26643"}}}
	if err := Failure(runs, true); err == nil || !strings.Contains(err.Error(), "not in any target's corpus, so not run: MDEV-26643 (a mariadb bug)") {
		t.Errorf("%v", err)
	}
	runs[1].Missing = nil
	if err := Failure(runs, true); err != nil {
		t.Errorf("ran on one: %v", err)
	}
}

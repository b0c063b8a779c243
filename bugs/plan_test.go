package bugs

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/target"
)

// TestReportExit: bugs test prints the table of what ran whatever its
// exit status: 1 for a changed status with --check, 2 for a target that
// did not finish (Failure).
func TestReportExit(t *testing.T) {
	runs := func(changed bool, err error) []*TargetRun {
		runs := []*TargetRun{
			{Spec: "sqlite", Info: target.Info{DBMS: "sqlite", Version: "3.50.1"}, Results: []Result{
				{Entry: Entry{Bug: "DOC-SQLITE-BUSY-UPGRADE", DBMS: "sqlite"}, Levels: []LevelResult{
					{Level: target.Serializable, Status: Reproduces, Recorded: Reproduces, Changed: changed}}}}},
		}
		if err != nil {
			runs = append(runs, &TargetRun{Spec: "tidb", Err: err})
		}
		return runs
	}
	for _, tt := range []struct {
		name  string
		runs  []*TargetRun
		check bool
		code  int
	}{
		{"as recorded", runs(false, nil), true, 0},
		{"changed without --check", runs(true, nil), false, 0},
		{"changed with --check", runs(true, nil), true, 1},
		{"a target that did not start", runs(false, errors.New("build failed")), true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Report(&out, tt.runs, false, true, tt.check, nil)
			code := exitcode.Of(err)
			if code != tt.code {
				t.Errorf("exit %d (%v), want %d", code, err, tt.code)
			}
			if !strings.Contains(out.String(), "DOC-SQLITE-BUSY-UPGRADE") {
				t.Errorf("no table:\n%s", out.String())
			}
		})
	}
}

package reduce

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/fulldisk"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/testcase"
)

// TestWriteReducedFullDisk: a reduced case that does not fit leaves the
// bundle as it was found (case.txn the case as found, no case.orig.txn)
// instead of a bundle without case.txn.
func TestWriteReducedFullDisk(t *testing.T) {
	dir := fulldisk.Dir(t, 64<<10)
	found := "CREATE TABLE t (id INT PRIMARY KEY);\n1> BEGIN;\n1> SELECT * FROM t;\n1> COMMIT;\n"
	files := map[string]string{CaseFile: found, report.ScheduleFile: "{}\n", "report.txt": "a finding\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	small, err := testcase.ParseString("small", "1> SELECT 1;\n")
	if err != nil {
		t.Fatal(err)
	}
	fulldisk.Fill(t, dir)
	err = writeReduced(dir, filepath.Join(dir, CaseFile), &Result{Case: small, Schedule: &executor.Result{}})
	if err == nil {
		t.Fatal("the reduced case was written to a full disk")
	}
	for name, text := range files {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != text {
			t.Errorf("%s holds %q after the failed write, want %q", name, got, text)
		}
	}
	for _, name := range []string{OrigFile, OrigScheduleFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s exists after the failed write", name)
		}
	}
}

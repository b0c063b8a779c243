package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLimits: --workers past its cap and a case file past the size limit
// are refused with one line naming the limit, before anything runs.
func TestLimits(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.txn")
	text := "CREATE TABLE t (v INT);\n" + strings.Repeat("1> SELECT 1;\n", 20000)
	if err := os.WriteFile(big, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"fuzz", "--workers", fmt.Sprint(4*runtime.NumCPU() + 1)}, fmt.Sprintf("at most %d (4 per core", 4*runtime.NumCPU())},
		{[]string{"run", big}, "more than 10000 statements"},
		{[]string{"reduce", big}, "more than 10000 statements"},
	} {
		code, _, stderr := txlab(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestRunJudgeTimeout: judging counts against --hang-timeout. IsoRel's
// predicate edges cost reads × versions; on a case of 9000 statements they
// take far longer than the bound (about 10 s), while the case itself runs
// in well under a second: run shows the case, says it was not judged, and
// exits 2.
func TestRunJudgeTimeout(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 0), (2, 0), (3, 0);\n")
	for i := range 4500 {
		fmt.Fprintf(&b, "1> UPDATE t SET v = %d WHERE id = %d;\n2> SELECT * FROM t WHERE id = %d;\n", i, i%3+1, (i+1)%3+1)
	}
	c := filepath.Join(t.TempDir(), "long.txn")
	if err := os.WriteFile(c, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// IsoRel's hidden write lists make this case's results outgrow the
	// default --max-result-bytes: the bound under test is the judging's.
	code, out, stderr := txlab(t, "run", "--oracle", "isorel", "--hang-timeout", "4s", "--max-result-bytes", "1GiB", c)
	if code != 2 || !strings.Contains(stderr, "1 case not judged within --hang-timeout 4s") {
		t.Errorf("exit %d, stderr %q; want 2 and the case not judged", code, stderr)
	}
	if !strings.Contains(out, "note: isorel did not finish judging within the case's bound") || !strings.Contains(out, "final state:") {
		t.Errorf("the output does not show the case and why it is not judged:\n%.2000s", out)
	}
}

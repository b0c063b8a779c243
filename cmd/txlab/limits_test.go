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

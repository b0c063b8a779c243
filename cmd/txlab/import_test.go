package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportGoesOn: a file that cannot be converted is said on its own
// line, the other files are still converted, and the exit status is 2.
func TestImportGoesOn(t *testing.T) {
	good, err := filepath.Glob("../../convert/testdata/troc/*.txt")
	if err != nil || len(good) == 0 {
		t.Fatalf("no troc test files: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("this is not a troc case\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, errOut := txlab(t, "import", "--from", "troc", "--out", out, bad, good[0])
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "bad.txt") || !strings.Contains(errOut, "1 of 2 files not converted") {
		t.Errorf("stderr %q: want the bad file named and the count", errOut)
	}
	written, _ := filepath.Glob(filepath.Join(out, "*.txn"))
	if len(written) == 0 {
		t.Errorf("the good file after the bad one was not converted; stderr %q", errOut)
	}
}

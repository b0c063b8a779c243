package main

import (
	"fmt"
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

// TestImportRefusesNotUTF8: a troc file whose SQL holds a GBK lead byte
// before a backslash (the server, reading GBK, would see the string end
// there and run what follows) is refused with its line and byte offset,
// and no case file is written for it.
func TestImportRefusesNotUTF8(t *testing.T) {
	good, err := filepath.Glob("../../convert/testdata/troc/*.txt")
	if err != nil || len(good) == 0 {
		t.Fatalf("no troc test files: %v", err)
	}
	text, err := os.ReadFile(good[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	bad := filepath.Join(t.TempDir(), "gbk.txt")
	body := lines[0] + "INSERT INTO t VALUES ('\xbf\\''); DROP USER root; -- ');\n" + strings.Join(lines[1:], "")
	if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, errOut := txlab(t, "import", "--from", "troc", "--out", out, bad)
	want := "gbk.txt: line 2: byte " + fmt.Sprint(len(lines[0])+23) + " (column 24) is not valid UTF-8 (0xbf)"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if written, _ := filepath.Glob(filepath.Join(out, "*.txn")); len(written) > 0 {
		t.Errorf("wrote %v", written)
	}
}

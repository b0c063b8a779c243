package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/testcase"
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

// TestImportVendorTests: --from pg-isolation gives one case file per
// permutation of a spec, --from mysql-test one per scenario of a .test
// file, each a case txlab reads.
func TestImportVendorTests(t *testing.T) {
	for _, tc := range []struct {
		from, file string
		want       []string
	}{
		{"pg-isolation", "../../convert/pgspec/testdata/lost-update.spec", []string{"lost-update-1.txn", "lost-update-2.txn"}},
		{"mysql-test", "../../convert/mysqltest/testdata/scenarios.test", []string{"scenarios-1.txn", "scenarios-2.txn"}},
	} {
		out := t.TempDir()
		code, _, errOut := txlab(t, "import", "--from", tc.from, "--out", out, tc.file)
		if code != 0 {
			t.Fatalf("%s: exit %d; stderr %q", tc.from, code, errOut)
		}
		for _, name := range tc.want {
			if _, err := testcase.ParseFile(filepath.Join(out, name)); err != nil {
				t.Errorf("%s: %v", tc.from, err)
			}
		}
	}
}

// TestImportNamesDoNotCollide: a spec's second permutation and a spec
// named like it (nowait.spec, nowait-2.spec) both keep their case file.
func TestImportNamesDoNotCollide(t *testing.T) {
	dir := t.TempDir()
	two := "setup { CREATE TABLE t (k int); }\nsession s1\nstep a { SELECT 1; }\nstep b { SELECT 2; }\npermutation a b\npermutation b a\n"
	one := "session s1\nstep c { SELECT 3; }\n"
	for name, text := range map[string]string{"nowait.spec": two, "nowait-2.spec": one} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	code, _, errOut := txlab(t, "import", "--from", "pg-isolation", "--out", out, filepath.Join(dir, "nowait.spec"), filepath.Join(dir, "nowait-2.spec"))
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	written, _ := filepath.Glob(filepath.Join(out, "*.txn"))
	if len(written) != 3 {
		t.Errorf("wrote %v, want 3 case files; stderr %q", written, errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/testcase"
)

func TestBugsShow(t *testing.T) {
	code, out, errOut := txlab(t, "bugs", "show", "PG-SSI-ON-CONFLICT")
	if code != 0 {
		t.Fatalf("bugs show: exit %d, %s", code, errOut)
	}
	c, err := testcase.ParseString("shown", out)
	if err != nil {
		t.Fatalf("bugs show printed a case run would reject: %v\n%s", err, out)
	}
	if c.Known.Bug != "PG-SSI-ON-CONFLICT" || len(c.Steps) == 0 {
		t.Errorf("bugs show printed bug %q with %d steps, want PG-SSI-ON-CONFLICT's case", c.Known.Bug, len(c.Steps))
	}

	dir := t.TempDir()
	code, out, errOut = txlab(t, "bugs", "show", "--out", dir, "mdev-30835", "bugs/pg-ssi-on-conflict-do-nothing.txn")
	if code != 0 {
		t.Fatalf("bugs show --out: exit %d, %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txn"))
	if len(files) < 2 || strings.Count(out, "\n") != len(files) {
		t.Fatalf("bugs show --out wrote %v and printed %q", files, out)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testcase.ParseString(f, string(data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	code, _, errOut = txlab(t, "bugs", "show", "NO-SUCH-BUG")
	if code != 2 || !strings.Contains(errOut, `"NO-SUCH-BUG"`) {
		t.Errorf("unknown id: exit %d, %q; want exit 2 naming it", code, errOut)
	}
}

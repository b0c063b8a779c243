package convert_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/convert"
	"github.com/txlab/txlab/testcase"
)

// replBugModule is a ReplBug bug module whose get_scenarios returns the
// given scenario literals.
func replBugModule(scenarios string) string {
	return `BUG_ID = "MDEV-1"
LINK = "https://jira.mariadb.org/browse/MDEV-1"
DB_AND_VERSION = (DatabaseType.MARIADB, "10.5")
DESCRIPTION = "d"
SETUP_SQL_SCRIPT = """CREATE TABLE t (a int);"""

def get_scenarios(isolation_level):
    return [
` + scenarios + "    ]\n"
}

// TestHostileFiles: files made to cost far more than their size are
// refused, or converted, in about the time it takes to read them: a
// troc file of 200,000 cases and a ReplBug module of 300,000 scenarios
// are refused by their count before the cases are made (a million troc
// cases took 1.7 GB and 35 s to be refused once made); a ReplBug
// statement continued over 400,000 lines converts (appending each line
// took minutes), and so does a file's lines being counted scenario after
// scenario (40 s for those 300,000).
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	scenario := "        \"\"\"\nconn_0> SELECT 1;\n\"\"\",\n"
	for _, tc := range []struct {
		name, format, text string
		maxCases           int
		want               string // in File's error; "" for none
	}{
		{"many.txt", "troc", strings.Repeat("CREATE TABLE t (a INT);\n\nRC\nBEGIN;\nCOMMIT;\n\n1-1\nEND\n", 200_000), 0,
			"200000 cases: more than the 2000 allowed"},
		{"many.py", "replbug", replBugModule(strings.Repeat(scenario, 300_000)), 0,
			"300000 cases: more than the 2000 allowed"},
		{"long.py", "replbug", replBugModule("        \"\"\"\nconn_0> SELECT\n" + strings.Repeat("  1 +\n", 400_000) + "  1;\n\"\"\",\n"), 0,
			"bytes, more than the 1048576 a case file may hold (txlab run reads no larger)"},
		{"short.py", "replbug", replBugModule("        \"\"\"\nconn_0> SELECT\n" + strings.Repeat("  1 +\n", 100_000) + "  1;\n\"\"\",\n"), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			n := 0
			go func() {
				done <- convert.File(context.Background(), tc.format, path, convert.Options{MaxCases: tc.maxCases}, func(*testcase.Case, string, int, int) error {
					n++
					return nil
				})
			}()
			select {
			case err := <-done:
				var tm *convert.TooManyCasesError
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%v, want the case", err)
				case tc.want == "" && n != 1:
					t.Errorf("%d cases, want 1", n)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("%v, want %q", err, tc.want)
				case tc.want != "" && n > 0:
					t.Errorf("emitted %d cases of a refused file", n)
				case strings.Contains(tc.want, "allowed") && !errors.As(err, &tm):
					t.Errorf("%T, want a *convert.TooManyCasesError", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("not done in 20 s")
			}
		})
	}
}

// TestFileCancelled: a spec whose interleavings cannot all be made (20
// sessions of one step: 20! of them) converts one at a time, and a
// cancelled context stops it at the next case, with the context's error.
func TestFileCancelled(t *testing.T) {
	var b strings.Builder
	for s := 'a'; s < 'a'+20; s++ {
		b.WriteString("session s" + string(s) + "\nstep " + string(s) + " { SELECT 1; }\n")
	}
	path := filepath.Join(t.TempDir(), "fact.spec")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := 0
	done := make(chan error, 1)
	go func() {
		done <- convert.File(ctx, "pg-isolation", path, convert.Options{MaxCases: 1 << 62}, func(c *testcase.Case, _ string, i, n int) error {
			if got++; got == 5 {
				cancel()
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || got != 5 {
			t.Errorf("%v after %d cases, want context.Canceled after 5", err, got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("not stopped 20 s after the context was cancelled")
	}
}

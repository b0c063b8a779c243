package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/internal/fulldisk"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// failedWrite checks the end of a command whose --out disk is full: exit 2,
// one "txlab:" line on stderr naming a file of want under dir, and no empty
// or temporary file, nor a bundle directory without report.json, left there.
func failedWrite(t *testing.T, dir string, code int, stderr string, want ...string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(l, "txlab:") {
			lines = append(lines, l)
		}
	}
	if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], dir) || !strings.Contains(lines[0], "no space left") && !strings.Contains(lines[0], "permission denied") {
		t.Fatalf("exit %d, stderr %q: want exit 2 and one txlab: line naming the file under %s that did not fit", code, stderr, dir)
	}
	named := false
	for _, w := range want {
		named = named || strings.Contains(lines[0], w)
	}
	if !named {
		t.Errorf("%q names none of %q", lines[0], want)
	}
	if bad := fulldisk.Empty(t, dir); len(bad) > 0 {
		t.Errorf("left behind: %v", bad)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "report.json")); e.IsDir() && err != nil {
			t.Errorf("half a bundle left behind: %s", e.Name())
		}
	}
}

// TestReportFullDisk: txlab report on a directory whose disk is full says
// which page it could not write and leaves no empty page behind.
func TestReportFullDisk(t *testing.T) {
	dir := fulldisk.Dir(t, 1<<20)
	if err := os.CopyFS(dir, os.DirFS("../../htmlreport/testdata/bundles")); err != nil {
		t.Fatal(err)
	}
	fulldisk.Fill(t, dir)
	code, stdout, stderr := txlab(t, "report", dir)
	failedWrite(t, dir, code, stderr, "report.html", "index.html")
	if stdout != "" {
		t.Errorf("stdout %q: no report was written", stdout)
	}
}

// TestFuzzFullDisk: a campaign whose --out disk is full ends with exit 2
// and says which file did not fit, whether that is a bundle's or (every
// finding known, so only the signature counts are written) summary.json.
func TestFuzzFullDisk(t *testing.T) {
	localdbtest.Require(t, localdb.Postgres)
	suppress := filepath.Join(t.TempDir(), "all.txt")
	if err := os.WriteFile(suppress, []byte("*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"bundle", nil, []string{"-mt-"}},
		{"summary", []string{"--suppress", suppress}, []string{"summary.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fulldisk.Dir(t, 64<<10)
			fulldisk.Fill(t, dir)
			if os.Geteuid() != 0 {
				// Not as root, Fill makes dir read-only, which a
				// campaign refuses at its start (TestOutCheckedAtStart):
				// only a full tmpfs lets it start and fail on a write.
				code, _, stderr := txlab(t, "fuzz", "--cases", "1", "--out", dir)
				if code != 2 || !strings.Contains(stderr, "--out "+dir+": cannot write there") {
					t.Errorf("a read-only --out: exit %d, %q", code, stderr)
				}
				return
			}
			args := append([]string{"fuzz", "--db", "postgres", "--oracle", "mt", "--isolation", "rc", "--model", "serializable",
				"--cases", "2", "--txns", "1000", "--out", dir}, tt.extra...)
			code, stdout, stderr := txlab(t, args...)
			if !strings.Contains(stdout, "findings") {
				t.Errorf("no summary on stdout:\n%s", stdout)
			}
			failedWrite(t, dir, code, stderr, tt.want...)
		})
	}
}

// TestShellSaveFullDisk: a script whose \save does not fit ends with exit 2
// naming the file (it would otherwise go on as if the case were saved), and
// leaves no empty case file; so does import --out.
func TestShellSaveFullDisk(t *testing.T) {
	dir := fulldisk.Dir(t, 64<<10)
	fulldisk.Fill(t, dir)
	saved := filepath.Join(dir, "session.txn")
	script := "CREATE TABLE t (id INT PRIMARY KEY);\n1> BEGIN;\n1> INSERT INTO t VALUES (1);\n1> COMMIT;\n\\save " + saved + "\n1> SELECT 1;\n"
	var out, errb bytes.Buffer
	code := runIO(context.Background(), []string{"shell"}, strings.NewReader(script), &out, &errb)
	failedWrite(t, dir, code, errb.String(), "session.txn")
	if strings.Contains(out.String(), "SELECT 1") {
		t.Errorf("the script went on after the failed \\save:\n%s", out.String())
	}

	code, _, stderr := txlab(t, "import", "--from", "troc", "--out", dir, "../../convert/testdata/troc/mariadb26642.txt")
	failedWrite(t, dir, code, stderr, "mariadb26642")
}

// TestOutCheckedAtStart: a campaign or a run whose --out cannot take a file (a
// read-only disk, a path under a file) ends at once with one line, before a
// case runs, instead of after its whole --duration.
func TestOutCheckedAtStart(t *testing.T) {
	dir := fulldisk.ReadOnly(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, out := range []string{dir, filepath.Join(dir, "new", "deeper"), filepath.Join(file, "sub")} {
		for _, args := range [][]string{{"fuzz", "--duration", "10m"}, {"bugs", "test", "DOC-SQLITE-BUSY-UPGRADE"}, {"run", "../../examples/sqlite-write-busy.txn"}} {
			began := time.Now()
			code, stdout, stderr := txlab(t, append(args, "--out", out)...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--out "+out+": cannot write there") {
				t.Errorf("%v --out %s: exit %d, stdout %q, stderr %q: want exit 2 and one line", args, out, code, stdout, stderr)
			}
			if d := time.Since(began); d > 5*time.Second {
				t.Errorf("%v --out %s: ended after %v, want at once", args, out, d)
			}
		}
	}
	// A directory still to be made is not made by the check.
	fresh := filepath.Join(t.TempDir(), "findings")
	if err := checkOut(fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("checkOut made %s (%v)", fresh, err)
	}
}

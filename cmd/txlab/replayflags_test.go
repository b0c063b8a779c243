package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/report"
)

// TestReplayBundle: a bundle records the command that reproduces its
// finding, and both that command and txlab run BUNDLE_DIR (without a flag:
// the case's replay header names the target, the level and the oracle)
// give the finding's signature again.
func TestReplayBundle(t *testing.T) {
	localdbtest.Require(t, localdb.MariaDB)
	out := t.TempDir()
	code, _, stderr := txlab(t, "run", "--db", "mariadb", "--oracle", "troc", "--out", out, "../../bugs/mdev-30835-found-rc-replace.txn")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*-troc-*"))
	if len(dirs) != 1 {
		t.Fatalf("bundles %v", dirs)
	}
	data, err := os.ReadFile(filepath.Join(dirs[0], "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	want := "txlab run --db mariadb --isolation read-committed --oracle troc " + dirs[0]
	if r.Replay != want {
		t.Fatalf("replay %q, want %q", r.Replay, want)
	}
	signatures := func(args ...string) []string {
		t.Helper()
		code, stdout, stderr := txlab(t, append(args, "--json", "--out", t.TempDir())...)
		if code != 1 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var sigs []string
		for _, cr := range decodeCases(t, stdout) {
			for _, f := range cr.Findings {
				sigs = append(sigs, f.Signature)
			}
		}
		return sigs
	}
	recorded, err := report.ShellSplit(strings.TrimPrefix(r.Replay, "txlab "))
	if err != nil {
		t.Fatal(err)
	}
	if got := signatures(recorded...); !slices.Contains(got, r.Signature) {
		t.Errorf("the recorded command gave %q, want %q", got, r.Signature)
	}
	if got := signatures("run", dirs[0]); !slices.Contains(got, r.Signature) || len(got) != 1 {
		t.Errorf("txlab run BUNDLE_DIR gave %q, want only %q (troc, as recorded)", got, r.Signature)
	}
}

// TestReplayHeaderLimits: a replay header never makes txlab connect to a
// URL, open a file or run a build's path, nor does txlab then run the case
// on another DBMS: it names the --db to give and exits 2. The command line
// wins.
func TestReplayHeaderLimits(t *testing.T) {
	dir := t.TempDir()
	for i, header := range []string{
		"--db postgres://me@localhost/prod --isolation serializable --oracle none",
		"--db sqlite:/tmp/x.db --oracle none",
		"--db mariadb@/tmp/evil --oracle none",
		"--db mariadb@./evil --oracle none",
		"--db postgres@~/evil --oracle none",
		"--db 'postgres@18/../../x' --oracle none",
	} {
		path := filepath.Join(dir, "c.txn")
		os.WriteFile(path, []byte("-- replay: "+header+"\nCREATE TABLE t (a INT);\n1> SELECT * FROM t;\n"), 0o644)
		words, _ := report.ShellSplit(header)
		code, stdout, stderr := txlab(t, "run", path)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "give --db "+report.ShellJoin(words[1:2])) {
			t.Errorf("header %d %q: exit %d, stdout %q, stderr %q: want one line naming the --db to give, and nothing run", i, header, code, stdout, stderr)
		}
	}
	path := filepath.Join(dir, "c.txn")
	os.WriteFile(path, []byte("-- replay: --set 'archive_command=touch /tmp/pwned' --oracle none\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"), 0o644)
	if code, _, stderr := txlab(t, "run", path); code != 2 || !strings.Contains(stderr, "sets --set archive_command=touch /tmp/pwned, which is not taken from a file") {
		t.Errorf("a dangerous --set: exit %d, %q", code, stderr)
	}
	os.WriteFile(path, []byte("-- replay: --oracle none --output x\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"), 0o644)
	if code, _, stderr := txlab(t, "run", path); code != 2 || !strings.Contains(stderr, `"--output" is not a flag txlab run takes from a case`) {
		t.Errorf("an unknown flag: exit %d, %q", code, stderr)
	}
	os.WriteFile(path, []byte("-- replay: --isolation serializable --oracle wss\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"), 0o644)
	code, stdout, stderr := txlab(t, "run", "--oracle", "none", path)
	if code != 0 || !strings.Contains(stderr, "replaying with the case's --isolation serializable") || strings.Contains(stderr, "--oracle wss") || strings.Contains(stdout, "wss") {
		t.Errorf("the command line's --oracle did not win: exit %d\n%s%s", code, stdout, stderr)
	}
	// The --db the user gives is the one used; the header's settings were
	// for its own server and are not carried to another.
	os.WriteFile(path, []byte("-- replay: --db mariadb --set innodb_snapshot_isolation=ON --oracle none\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"), 0o644)
	if code, _, stderr := txlab(t, "run", "--db", "sqlite", path); code != 0 || !strings.Contains(stderr, "not used with another --db") {
		t.Errorf("--db sqlite over a MariaDB header: exit %d, %q", code, stderr)
	}
}

// bundleSignature runs txlab run --json on a bundle and returns the
// signatures of its findings, with the exit code.
func bundleSignatures(t *testing.T, args ...string) (int, []string, string) {
	t.Helper()
	code, stdout, stderr := txlab(t, append(args, "--json", "--out", t.TempDir())...)
	var sigs []string
	for _, cr := range decodeCases(t, stdout) {
		for _, f := range cr.Findings {
			sigs = append(sigs, f.Signature)
		}
	}
	return code, sigs, stderr
}

// readReport reads a bundle's report.json.
func readReport(t *testing.T, dir string) report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReduceBundleWhereFound: txlab bugs test BUNDLE_DIR and txlab reduce
// BUNDLE_DIR of a MariaDB finding,
// with no flag, reduces on MariaDB at the recorded level (it used to run on
// SQLite and fail on the level), and the reduced bundle still replays
// there with txlab run BUNDLE_DIR.
func TestReduceBundleWhereFound(t *testing.T) {
	localdbtest.Require(t, localdb.MariaDB)
	out := t.TempDir()
	if code, _, stderr := txlab(t, "run", "--db", "mariadb", "--oracle", "troc", "--out", out, "../../bugs/mdev-30835-found-rc-replace.txn"); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*-troc-*"))
	if len(dirs) != 1 {
		t.Fatalf("bundles %v", dirs)
	}
	sig := readReport(t, dirs[0]).Signature
	// bugs test BUNDLE_DIR runs the corpus bug the finding is, where and
	// as it was found: MDEV-30835 at read committed, with troc.
	code, stdout, stderr := txlab(t, "bugs", "test", dirs[0])
	if code != 0 || !regexp.MustCompile(`(?m)^MDEV-30835 +RC +reproduces +bug `).MatchString(stdout) || strings.Count(stdout, "\n") != 2 {
		t.Errorf("bugs test BUNDLE: exit %d, want MDEV-30835 at RC only, reproduced:\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = txlab(t, "reduce", "--runs", "1", dirs[0])
	if code != 0 || !strings.Contains(stderr, "replaying with the case's --db mariadb --isolation read-committed --oracle troc") || !strings.Contains(stderr, "on mariadb ") {
		t.Fatalf("reduce BUNDLE: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "case.orig.txn")); err != nil {
		t.Fatalf("reduce wrote no case.orig.txn: %v", err)
	}
	code, sigs, stderr := bundleSignatures(t, "run", dirs[0])
	if code != 1 || !slices.Equal(sigs, []string{sig}) {
		t.Errorf("run of the reduced bundle: exit %d, %q, want %q: %s", code, sigs, sig, stderr)
	}
}

// TestOwnBuildBundle: a finding made with --db KIND@/path is not replayed
// nor reduced without --db (the file must not choose the binaries txlab
// runs): exit 2 with one line giving the --db, and nothing run on another
// DBMS. With that --db alone it replays and reduces as found.
func TestOwnBuildBundle(t *testing.T) {
	localdbtest.Require(t, localdb.Postgres)
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(bins) == 0 {
		t.Fatal("localdb found PostgreSQL but not in /usr/lib/postgresql/*/bin")
	}
	spec := "postgres@" + bins[len(bins)-1]
	out := t.TempDir()
	if code, _, stderr := txlab(t, "run", "--db", spec, "--model", "serializable", "--oracle", "isorel", "--out", out, "../../bugs/doc-pg-rr-write-skew.txn"); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*-isorel-*"))
	if len(dirs) != 1 {
		t.Fatalf("bundles %v", dirs)
	}
	bundle := dirs[0]
	sig := readReport(t, bundle).Signature
	for _, cmd := range []string{"run", "reduce"} {
		code, stdout, stderr := txlab(t, cmd, bundle)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "give --db "+spec+" to replay it") || strings.Contains(stderr, "sqlite") {
			t.Errorf("%s BUNDLE without --db: exit %d, stdout %q, stderr %q: want exit 2 and one line giving --db %s", cmd, code, stdout, stderr, spec)
		}
	}
	code, sigs, stderr := bundleSignatures(t, "run", "--db", spec, bundle)
	if code != 1 || !slices.Equal(sigs, []string{sig}) {
		t.Errorf("run --db %s BUNDLE: exit %d, %q, want %q: %s", spec, code, sigs, sig, stderr)
	}
	if !strings.Contains(stderr, "--model serializable") || !strings.Contains(stderr, "--isolation repeatable-read") {
		t.Errorf("run --db BUNDLE did not take the recorded --model and level: %s", stderr)
	}
	if code, _, stderr := txlab(t, "reduce", "--runs", "1", "--db", spec, bundle); code != 0 || !strings.Contains(stderr, "keeping "+sig) {
		t.Errorf("reduce --db %s BUNDLE: exit %d: %s", spec, code, stderr)
	}
}

// TestBugsTestBundleRefused: bugs test BUNDLE_DIR takes no path from the
// bundle (one line giving the --db, before any server), and a bundle whose
// finding is no corpus bug is said, not answered by running the corpus.
func TestBugsTestBundleRefused(t *testing.T) {
	bundle := func(rule, replay string) string {
		dir := filepath.Join(t.TempDir(), "0001-troc-incorrect-blocking-bug")
		os.Mkdir(dir, 0o755)
		js, _ := json.Marshal(map[string]any{"finding": map[string]string{"oracle": "troc", "rule": rule}, "replay": replay + " " + dir})
		os.WriteFile(filepath.Join(dir, "report.json"), js, 0o644)
		return dir
	}
	dir := bundle("mdev-30835-update-skips-uncommitted-insert", "txlab run --db mariadb@/tmp/evil --isolation read-committed --oracle troc")
	code, stdout, stderr := txlab(t, "bugs", "test", dir)
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "give --db mariadb@/tmp/evil to replay it") {
		t.Errorf("bugs test of an own-build bundle: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	dir = bundle("no-such-rule", "txlab run --db mariadb --oracle troc")
	code, stdout, stderr = txlab(t, "bugs", "test", dir)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "its finding (rule no-such-rule) is no bug of the corpus") {
		t.Errorf("bugs test of a bundle of no corpus bug: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

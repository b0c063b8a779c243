package report_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// runFlags is txlab run's flags as ReadReplay looks them up: given are the
// ones its command line set, with their values.
func runFlags(given map[string]string) func(string) (report.CommandFlag, bool) {
	return func(name string) (report.CommandFlag, bool) {
		switch name {
		case "db", "set", "isolation", "oracle", "model", "out":
			v, ok := given[name]
			return report.CommandFlag{Given: ok, Value: v}, true
		case "strict":
			_, ok := given[name]
			return report.CommandFlag{Bool: true, Given: ok}, true
		}
		return report.CommandFlag{}, false
	}
}

// writeBundle writes one finding's bundle with the writer's replay flags
// and returns its directory.
func writeBundle(t *testing.T, replay []string) string {
	t.Helper()
	w := &report.Writer{Dir: t.TempDir(), Replay: replay, DB: &report.DB{Spec: "mariadb", DBMS: "mariadb", Version: "11.8.3"}}
	b := bundle(t, "tx-wss", verdict.Bug, "UPDATE")
	f, _, err := w.Write(b)
	if err != nil {
		t.Fatal(err)
	}
	return f.Dir
}

// TestReplayRoundTrip: what the writer records for replaying a finding
// (report.json's replay command, case.txn's replay header) reads back as
// the same flags, with the finding's level and oracle, from the bundle and
// from its case file alone.
func TestReplayRoundTrip(t *testing.T) {
	common := []string{"--db", "mariadb", "--set", "innodb_snapshot_isolation=ON", "--model", "serializable", "--strict"}
	dir := writeBundle(t, common)
	want := append(slices.Clone(common), "--isolation", "read-committed", "--oracle", "wss")
	flat := func(set []report.ReplayFlag) []string {
		var out []string
		for _, f := range set {
			out = append(out, "--"+f.Name)
			if !f.Bool {
				out = append(out, f.Value)
			}
		}
		return out
	}
	for _, path := range []string{dir, filepath.Join(dir, "case.txn")} {
		set, notes, err := report.ReadReplay([]string{path}, "run", runFlags(nil))
		if err != nil || len(notes) > 0 || !slices.Equal(flat(set), want) {
			t.Errorf("%s: %q, notes %q, %v; want %q", path, flat(set), notes, err, want)
		}
	}
	if got := report.RecordedTarget(dir); got != "mariadb 11.8.3" {
		t.Errorf("RecordedTarget = %q", got)
	}
	// The command line wins, and the settings of the recorded server are
	// not carried to another.
	set, notes, err := report.ReadReplay([]string{dir}, "run", runFlags(map[string]string{"db": "sqlite", "oracle": "troc"}))
	if err != nil || !slices.Equal(flat(set), []string{"--model", "serializable", "--strict", "--isolation", "read-committed"}) ||
		len(notes) != 1 || !strings.Contains(notes[0], "not used with another --db") {
		t.Errorf("--db sqlite --oracle troc given: %q, notes %q, %v", flat(set), notes, err)
	}
	// Bundles and case files.
	if !report.IsBundle(dir) || report.IsBundle(filepath.Join(dir, "case.txn")) || !report.AnyWritten([]string{"x.txn", dir}) || report.AnyWritten([]string{"x.txn"}) {
		t.Error("IsBundle or AnyWritten misjudges a bundle")
	}
	if got := report.BundleCases([]string{"x.txn", dir}); !slices.Equal(got, []string{"x.txn", filepath.Join(dir, "case.txn")}) {
		t.Errorf("BundleCases = %q", got)
	}
}

// TestReplayRefused: a replay header never chooses a server to connect to,
// a file or binaries to run, nor a setting that could run a program; a
// flag the command does not take from a case is an error, and headers that
// differ are said and none is used.
func TestReplayRefused(t *testing.T) {
	dir := t.TempDir()
	caseWith := func(name, header string) string {
		path := filepath.Join(dir, name)
		c := &testcase.Case{Name: name, Replay: header, Setup: []string{"CREATE TABLE t (a INT)"},
			Steps: []testcase.Step{{Conn: 1, SQL: "SELECT * FROM t"}}}
		if err := os.WriteFile(path, []byte(c.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for header, want := range map[string]string{
		"--db postgres://me@h/db --oracle none": "does not let a file choose which server to connect to: give --db postgres://me@h/db",
		"--db sqlite:/tmp/x.db":                 "does not let a file choose which database file to open: give --db sqlite:/tmp/x.db",
		"--db mariadb@/tmp/evil":                "does not let a file choose which binaries to run: give --db mariadb@/tmp/evil",
		"--db mysql://root:xxxxx@h/":            "give --db mysql://root:xxxxx@h/ with its password",
		"--set 'archive_command=touch /tmp/x'":  "sets --set archive_command=touch /tmp/x, which is not taken from a file: give --set 'archive_command=touch /tmp/x'",
		"--output x":                            `"--output" is not a flag txlab run takes from a case`,
		"--out x":                               `"--out" is not a flag txlab run takes from a case`,
		"--isolation":                           "--isolation has no value",
	} {
		_, _, err := report.ReadReplay([]string{caseWith("c.txn", header)}, "run", runFlags(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", header, err, want)
		}
	}
	a, b := caseWith("a.txn", "--isolation serializable"), caseWith("b.txn", "--isolation read-committed")
	if set, notes, err := report.ReadReplay([]string{a, b}, "run", runFlags(nil)); set != nil || len(notes) != 1 || err != nil {
		t.Errorf("differing headers: %v, %q, %v", set, notes, err)
	}
}

func TestThrowawaySpec(t *testing.T) {
	for v, want := range map[string]bool{"sqlite": true, "mariadb": true, "postgres@18": true, "postgres@18.4.0-beta.17": true, "tidb@8.5.6": true,
		"": false, "sqlite:/x.db": false, "mysql://h/": false, "mariadb@/usr": false, "mariadb@./b": false, "postgres@~/b": false, "postgres@18/../x": false, "x y": false} {
		if got := report.ThrowawaySpec(v); got != want {
			t.Errorf("ThrowawaySpec(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestSemanticSetting: a server setting that could run a program is not
// taken from a file; one the semantics table reads is.
func TestSemanticSetting(t *testing.T) {
	if !report.SemanticSetting("innodb_snapshot_isolation=ON") || !report.SemanticSetting("tidb_txn_mode=optimistic") ||
		report.SemanticSetting("archive_command=curl x|sh") || report.SemanticSetting("plugin_load=evil.so") || report.SemanticSetting("tidb_config=/etc/x") {
		t.Error("SemanticSetting lets through the wrong settings")
	}
}

func TestShellSplit(t *testing.T) {
	for _, args := range [][]string{
		{"--db", "mariadb", "--set", "innodb_snapshot_isolation=ON"},
		{"--db", "postgres://me@h/db?x=1&y=2", "/tmp/a dir/0001-troc", "it's"},
		{"--strict", ""},
	} {
		got, err := report.ShellSplit(report.ShellJoin(args))
		if err != nil || !slices.Equal(got, args) {
			t.Errorf("ShellSplit(ShellJoin(%q)) = %q, %v", args, got, err)
		}
	}
	if _, err := report.ShellSplit("--db 'x"); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}

// TestShownSpec: a spec is written down as given, a URL without its
// password.
func TestShownSpec(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres@18", "postgres@18"},
		{"postgres@/usr/lib/postgresql/15/bin", "postgres@/usr/lib/postgresql/15/bin"},
		{"sqlite:/tmp/x.db", "sqlite:/tmp/x.db"},
		{"mysql://root:secret@127.0.0.1:3306/", "mysql://root:xxxxx@127.0.0.1:3306/"},
		{"postgres://me@localhost/postgres", "postgres://me@localhost/postgres"},
		{"postgres://localhost/db?user=me&password=secret", "postgres://localhost/db?password=xxxxx&user=me"},
		{"mysql://root:se%zzcret@h/", "mysql://…"},
	} {
		got := report.ShownSpec(tt.in)
		if got != tt.want || strings.Contains(got, "secret") {
			t.Errorf("ShownSpec(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCommonReplay: the flags a writer's bundles replay with name the
// target as shown, its settings and the judging flags.
func TestCommonReplay(t *testing.T) {
	got := report.CommonReplay("mysql://root:pw@h/", []string{"a=1"}, "serializable", true)
	want := []string{"--db", "mysql://root:xxxxx@h/", "--set", "a=1", "--model", "serializable", "--strict"}
	if !slices.Equal(got, want) {
		t.Errorf("CommonReplay = %q, want %q", got, want)
	}
	if got := report.CommonReplay("sqlite", nil, "", false); !slices.Equal(got, []string{"--db", "sqlite"}) {
		t.Errorf("CommonReplay(sqlite) = %q", got)
	}
}

// TestReplayDownloadsNothing: a bundle that records a PostgreSQL release
// txlab does not have is refused with the --db to give (red team 4: the
// file made txlab ask the npm registry for it and would have installed
// and started it); the user giving that --db is their choice.
func TestReplayDownloadsNothing(t *testing.T) {
	t.Setenv("TXLAB_CACHE", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "case.txn")
	if err := os.WriteFile(path, []byte("-- replay: --db postgres@12.22 --isolation rr\nCREATE TABLE t (a INT);\n1> SELECT * FROM t;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := runFlags(nil)
	_, _, err := report.ReadReplay([]string{path}, "run", flags)
	if err == nil || !strings.Contains(err.Error(), "txlab downloads none on a file's say-so: give --db postgres@12.22 yourself") {
		t.Errorf("a release not installed: %v", err)
	}
	if err := os.WriteFile(path, []byte("-- replay: --db mariadb --isolation rr\nCREATE TABLE t (a INT);\n1> SELECT * FROM t;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if set, _, err := report.ReadReplay([]string{path}, "run", flags); err != nil || len(set) != 2 {
		t.Errorf("a throwaway MariaDB: %v, %v", set, err)
	}
}

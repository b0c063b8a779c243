package main

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/internal/expectfile"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/report"
)

// TestPublishedCases is how a user first tries txlab: the cases other
// tools publish (Troc's and WriteCheck's repositories), converted with
// `txlab import` and replayed with `txlab run` and the default oracles on
// MariaDB and PostgreSQL. testdata/published.txt says which `bug` rules
// each case must give: MariaDB's confirmed read-view and semi-consistent
// read bugs, and nothing on PostgreSQL, whose documented semantics allow
// or prevent every one of these schedules.
func TestPublishedCases(t *testing.T) {
	want := map[string][2]string{}
	for _, fs := range expectfile.Read(t, "testdata/published.txt", 3, 3) {
		want[fs[0]] = [2]string{fs[1], fs[2]}
	}

	dir := t.TempDir()
	for _, format := range []string{"troc", "writecheck"} {
		srcs, _ := filepath.Glob(filepath.Join("../../convert/testdata", format, "*.txt"))
		args := append([]string{"import", "--from", format, "--out", dir}, srcs...)
		if code, _, stderr := txlab(t, args...); code != 0 {
			t.Fatalf("import --from %s: exit %d: %s", format, code, stderr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txn"))
	if len(files) != len(want) {
		t.Fatalf("%d converted cases, testdata/published.txt lists %d", len(files), len(want))
	}
	for col, db := range []string{"mariadb", "postgres"} {
		t.Run(db, func(t *testing.T) {
			localdbtest.Require(t, localdb.Kind(db))
			_, stdout, stderr := txlab(t, append([]string{"run", "--db", db, "--json", "--out", t.TempDir()}, files...)...)
			got := map[string]string{}
			for _, cr := range decodeCases(t, stdout) {
				name := strings.TrimSuffix(filepath.Base(cr.Case), ".txn")
				var rules []string
				for _, fd := range cr.Findings {
					if fd.Verdict == report.Bug {
						rules = append(rules, fd.Rule)
					}
				}
				slices.Sort(rules)
				rules = slices.Compact(rules)
				switch {
				case len(rules) == 0:
					got[name] = "none"
				default:
					got[name] = strings.Join(rules, ",")
				}
			}
			// A case that could not run has a line on stderr instead.
			for _, line := range strings.Split(stderr, "\n") {
				if name, _, ok := strings.Cut(line, ".txn: setup statement"); ok {
					got[filepath.Base(strings.TrimPrefix(name, "txlab: "))] = "setup-fails"
				}
			}
			for name, w := range want {
				if got[name] != w[col] {
					t.Errorf("%s on %s: %q, want %q", name, db, got[name], w[col])
				}
			}
		})
	}
}

// TestBugsList: `txlab bugs list` shows the corpus; --dbms filters it.
func TestBugsList(t *testing.T) {
	code, out, stderr := txlab(t, "bugs", "list")
	if code != 0 || !strings.Contains(out, "MDEV-30835") || !strings.Contains(out, "bugs/mdev-30835-found-rc-replace.txn") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	code, out, _ = txlab(t, "bugs", "list", "--dbms", "postgres", "--json")
	if code != 0 || strings.Contains(out, "MDEV") {
		t.Errorf("--dbms postgres --json: exit %d, %s", code, out)
	}
}

// TestBugsTest runs the corpus's MariaDB bugs on MariaDB with the default
// oracles: the statuses measured on 10.11.14, the fixed MDEV-27992
// included (its blocked DELETE now fails with a deadlock error).
func TestBugsTest(t *testing.T) {
	localdbtest.Require(t, localdb.MariaDB)
	want := map[string]string{
		"MDEV-26642 repeatable-read":  "reproduces",
		"MDEV-26643 read-committed":   "reproduces",
		"MDEV-26643 read-uncommitted": "reproduces",
		"MDEV-26671 repeatable-read":  "reproduces",
		"MDEV-27992 serializable":     "not-reproduced",
		"MDEV-30835 read-committed":   "reproduces",
		"MDEV-30835 read-uncommitted": "reproduces",
	}
	code, stdout, stderr := txlab(t, "bugs", "test", "--db", "mariadb", "--json", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(stdout))
	for dec.More() {
		var r bugs.Result
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		for _, l := range r.Levels {
			got[r.Bug+" "+string(l.Level)] = l.Status
			// --suppress BUG relies on the rule header naming what the
			// verdict says.
			if l.Status == bugs.Reproduces && (r.Rule == "" || !slices.Contains(l.Rules, r.Rule)) {
				t.Errorf("%s at %s reproduces with rules %v; its rule header says %q", r.Bug, l.Level, l.Rules, r.Rule)
			}
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("statuses %v\nwant %v", got, want)
	}
	// Every bug at every level: it reproduces exactly at the levels its
	// header names (where want says it reproduces), nowhere else.
	code, stdout, stderr = txlab(t, "bugs", "test", "--db", "mariadb", "--isolation", "all", "--json", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("--isolation all: exit %d: %s", code, stderr)
	}
	dec = json.NewDecoder(strings.NewReader(stdout))
	n := 0
	for dec.More() {
		var r bugs.Result
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		for _, l := range r.Levels {
			n++
			if wantRepro := want[r.Bug+" "+string(l.Level)] == bugs.Reproduces; (l.Status == bugs.Reproduces) != wantRepro {
				t.Errorf("--isolation all: %s at %s: %s", r.Bug, l.Level, l.Status)
			}
		}
	}
	if n != 5*4 {
		t.Errorf("--isolation all ran %d bug × level pairs, want 20", n)
	}
	if code, _, _ := txlab(t, "bugs", "test", "--db", "sqlite", "MDEV-30835"); code != 2 {
		t.Errorf("a MariaDB bug on SQLite: exit %d, want 2 (no such bug for sqlite)", code)
	}
}

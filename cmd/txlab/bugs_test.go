package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// cells splits a table line into its cells (tabwriter pads with ≥ 2 spaces).
func cells(line string) []string {
	var out []string
	for _, f := range strings.Split(strings.TrimSpace(line), "  ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// TestBugsTestTargets runs bugs test on three real targets at once — the
// embedded SQLite and throwaway PostgreSQL and MariaDB servers it starts
// itself, one after another — with one bug of each: one table, a column
// per target, each bug's cells filled only for its own DBMS's target, every
// status as recorded, and progress on stderr that names each target and
// closes one before the next opens. With --json, each result names the
// target it ran on.
func TestBugsTestTargets(t *testing.T) {
	localdbtest.Require(t, localdb.Postgres)
	localdbtest.Require(t, localdb.MariaDB)
	ids := []string{"DOC-SQLITE-BUSY-UPGRADE", "PG-SSI-ON-CONFLICT", "MDEV-26643"}
	code, stdout, stderr := txlab(t, append([]string{"bugs", "test", "--db", "sqlite,postgres,mariadb", "--isolation", "all", "--check", "--out", t.TempDir()}, ids...)...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if got := cells(lines[0]); strings.Join(got, " ") != "DBMS BUG LEVEL sqlite postgres mariadb" {
		t.Fatalf("header %q\n%s", got, stdout)
	}
	want := map[string][]string{
		"sqlite DOC-SQLITE-BUSY-UPGRADE SER": {"yes", "—", "—"},
		"postgres PG-SSI-ON-CONFLICT SER":    {"—", "yes (bug)", "—"},
		"postgres PG-SSI-ON-CONFLICT RC":     {"—", "no (allowed)", "—"},
		"mariadb MDEV-26643 RC":              {"—", "—", "yes (bug)"},
		"mariadb MDEV-26643 SER":             {"—", "—", "no"},
	}
	rows := 0
	for _, line := range lines[2:] {
		c := cells(line)
		if len(c) != 6 {
			continue
		}
		rows++
		if w, ok := want[strings.Join(c[:3], " ")]; ok {
			if strings.Join(c[3:], "|") != strings.Join(w, "|") {
				t.Errorf("%s: %q, want %q", strings.Join(c[:3], " "), c[3:], w)
			}
			delete(want, strings.Join(c[:3], " "))
		}
	}
	if len(want) > 0 || rows != 1+4+4 {
		t.Errorf("%d rows; missing %v:\n%s", rows, want, stdout)
	}
	for _, w := range []string{"  sqlite 3.", ": 1 as recorded\n", "  postgres ", ": 4 as recorded\n", "  mariadb 10."} {
		if !strings.Contains(stdout, w) {
			t.Errorf("no %q in the comparison:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "CHANGED") || strings.Contains(stdout, " !  ") || strings.Contains(stdout, " !\n") {
		t.Errorf("a status changed:\n%s", stdout)
	}
	pgDone := strings.Index(stderr, "[2/3] postgres: 4 runs in")
	mariaOpens := strings.Index(stderr, "[3/3] mariadb: opening")
	if pgDone < 0 || mariaOpens < 0 || pgDone > mariaOpens || !strings.Contains(stderr, "[1/3] sqlite: sqlite 3.") {
		t.Errorf("progress on stderr: the postgres run ends at %d, mariadb opens at %d:\n%s", pgDone, mariaOpens, stderr)
	}

	code, stdout, stderr = txlab(t, "bugs", "test", "--db", "sqlite,postgres", "--json", "--out", t.TempDir(), "DOC-SQLITE-BUSY-UPGRADE", "PG-SSI-ON-CONFLICT")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var got []string
	for dec.More() {
		var r bugs.Result
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.DB+":"+r.Bug+":"+strings.Fields(r.Target)[0])
	}
	if strings.Join(got, " ") != "sqlite:DOC-SQLITE-BUSY-UPGRADE:sqlite postgres:PG-SSI-ON-CONFLICT:postgres" {
		t.Errorf("--json results %v\n%s", got, stdout)
	}
}

// hasRow reports whether the table has a line whose cells, the column
// padding aside, start with the given ones.
func hasRow(table, cells string) bool {
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Join(strings.Fields(line), " "); strings.HasPrefix(f+" ", cells+" ") {
			return true
		}
	}
	return false
}

// TestBugsTestTargetFails: a target that does not start is said, in the
// table and on stderr, the others still run, and the exit status is 2.
func TestBugsTestTargetFails(t *testing.T) {
	code, stdout, stderr := txlab(t, "bugs", "test", "--db", "sqlite,no-such-target", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "1 of 2 targets did not finish: no-such-target: ") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if c := cells(strings.SplitN(stdout, "\n", 2)[0]); len(c) != 5 || c[3] != "sqlite" || c[4] != "no-such-target" ||
		!strings.Contains(stdout, "(did not start)") || !hasRow(stdout, "sqlite DOC-SQLITE-BUSY-UPGRADE SER yes") {
		t.Errorf("table:\n%s", stdout)
	}
	code, _, stderr = txlab(t, "bugs", "test", "--db", "sqlite,postgres", "NO-SUCH-BUG")
	if code != 2 || !strings.Contains(stderr, "no bug NO-SUCH-BUG in the corpus") || strings.Contains(stderr, "opening") {
		t.Errorf("an unknown bug: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestBugsTestIDs: an id the corpus does not have is said before any
// server starts, and one that is in no target's corpus (a MariaDB bug on
// SQLite and SQLite) is said rather than left out of the table.
func TestBugsTestIDs(t *testing.T) {
	code, stdout, stderr := txlab(t, "bugs", "test", "--db", "mariadb", "NO-SUCH-BUG")
	if code != 2 || stdout != "" || strings.Contains(stderr, "opening") || !strings.Contains(stderr, "no bug NO-SUCH-BUG in the corpus") {
		t.Errorf("an unknown id: exit %d, stdout %q, stderr %q: want exit 2 before any server", code, stdout, stderr)
	}
	// A MariaDB bug on a PostgreSQL target is said before the server starts.
	code, stdout, stderr = txlab(t, "bugs", "test", "--db", "postgres@/no/such/build", "MDEV-26643")
	if code != 2 || stdout != "" || strings.Contains(stderr, "opening") || !strings.Contains(stderr, "no bug MDEV-26643 for postgres in the corpus") {
		t.Errorf("a MariaDB bug on PostgreSQL: exit %d, stdout %q, stderr %q: want exit 2 before any server", code, stdout, stderr)
	}
	code, stdout, stderr = txlab(t, "bugs", "test", "--db", "sqlite,sqlite", "--out", t.TempDir(), "MDEV-26643", "DOC-SQLITE-BUSY-UPGRADE")
	if code != 2 || !strings.Contains(stderr, "not in any target's corpus, so not run: MDEV-26643 (a mariadb bug)") || !strings.Contains(stdout, "DOC-SQLITE-BUSY-UPGRADE") {
		t.Errorf("a MariaDB bug on SQLite twice: exit %d\n%s%s", code, stdout, stderr)
	}
}

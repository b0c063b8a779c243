package upstream_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/convert/upstream"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/testcase"
)

// isolationTester finds PostgreSQL's isolation tester (pgxs ships it with
// the server); a test without it is skipped, or fails under CI=true.
func isolationTester(t *testing.T) string {
	t.Helper()
	found, _ := filepath.Glob("/usr/lib/postgresql/*/lib/pgxs/src/test/isolation/isolationtester")
	if len(found) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("PostgreSQL's isolationtester is not installed (CI=true: a missing tool is a failure)")
		}
		t.Skip("skipping: PostgreSQL's isolationtester is not installed")
	}
	return found[len(found)-1]
}

// TestSpecRunsOnIsolationTester: the spec a bundle carries is a test
// PostgreSQL's own tool runs as is, and shows what txlab saw: connection
// 2's UPDATE waits for connection 1's row lock and fails with a
// serialization error at REPEATABLE READ when connection 1 commits.
func TestSpecRunsOnIsolationTester(t *testing.T) {
	tester := isolationTester(t)
	srv := localdbtest.Server(t, localdb.Postgres)
	c, err := testcase.ParseString("case", `-- isolation: repeatable-read
CREATE TABLE t (k INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 10);
1> BEGIN;
1> UPDATE t SET v = v + 1 WHERE k = 1;
2> BEGIN;
2> UPDATE t SET v = v + 2 WHERE k = 1;
1> COMMIT;
2> COMMIT;
`)
	if err != nil {
		t.Fatal(err)
	}
	files := upstream.Files(upstream.Finding{DBMS: "postgres", Kind: "lost-update", Case: c})
	spec, ok := files[upstream.SpecFile]
	if !ok {
		t.Fatal("no spec")
	}
	cmd := exec.CommandContext(t.Context(), tester, strings.Replace(srv.DriverDSN(), "&connect_timeout=5", "", 1))
	cmd.Stdin = strings.NewReader(string(spec))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("isolationtester: %v\n%s\nspec:\n%s", err, out, spec)
	}
	for _, want := range []string{"step s2b: UPDATE t SET v = v + 2 WHERE k = 1; <waiting ...>", "step s2b: <... completed>",
		"ERROR:  could not serialize access due to concurrent update"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("isolationtester's output lacks %q:\n%s\nspec:\n%s", want, out, spec)
		}
	}
}

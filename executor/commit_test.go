package executor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// failedCommitCase is issue 42's six lines: connection 1 commits a child
// row whose parent does not exist under a deferred foreign key, and
// connection 2 then inserts the parent. On SQLite the COMMIT fails and
// leaves the transaction open, holding the database's write lock; before
// txlab rolled it back, connection 2's INSERT waited out the hang bound.
const failedCommitCase = `CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, pid INT REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED);
1> BEGIN;
1> INSERT INTO c VALUES (1, 99);
1> COMMIT;
2> INSERT INTO p VALUES (1);
`

// TestFailedCommitEndsTransaction runs the case on every target: the case
// ends well within its bound, connection 2's INSERT never waits, the
// child row is not committed and the schedule says how the transaction
// ended — the DBMS ended it (RolledBack: PostgreSQL, TiDB) or txlab's
// own ROLLBACK, right after the COMMIT, did (SQLite). MariaDB and TiDB
// have no deferred keys: there the key is checked at the INSERT, and
// their copy declares it as a table constraint (DEFERRABLE is a syntax
// error, and TiDB, as MySQL, ignores a column's inline REFERENCES).
func TestFailedCommitEndsTransaction(t *testing.T) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres", "tidb"} {
		t.Run(dbms, func(t *testing.T) {
			text := failedCommitCase
			if dbms == "mariadb" || dbms == "tidb" {
				text = strings.ReplaceAll(text, "pid INT REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED", "pid INT, FOREIGN KEY (pid) REFERENCES p (id)")
			}
			c, err := testcase.ParseString("failed-commit.txn", text)
			if err != nil {
				t.Fatal(err)
			}
			tg := connecttest.Target(t, dbms)
			res, err := executor.Run(context.Background(), tg, c, executor.Options{HangTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.Hang {
				t.Fatalf("the case hung:\n%s", compact(res))
			}
			if res.Elapsed > 5*time.Second {
				t.Errorf("the case took %v", res.Elapsed)
			}
			failed := false // connection 1's INSERT or COMMIT failed
			for i, ev := range res.Events {
				switch {
				case ev.Conn == 2 && (ev.Status != executor.StatusOK || ev.Resumed):
					t.Errorf("connection 2's INSERT: %s, resumed %v; want ok at once", ev.Status, ev.Resumed)
				case ev.Conn == 1 && ev.Status == executor.StatusError && ev.Kind.For(ev.SQL).Control == testcase.Commit:
					failed = true
					if ev.Error.RolledBack {
						break // the DBMS ended the transaction
					}
					if i+1 >= len(res.Events) {
						t.Fatalf("nothing after the failed COMMIT:\n%s", compact(res))
					}
					rb := res.Events[i+1]
					if rb.Conn != 1 || !rb.Implicit || rb.SQL != "ROLLBACK" || rb.Status != executor.StatusOK {
						t.Errorf("after the failed COMMIT, which did not end the transaction: %+v; want txlab's ROLLBACK", rb)
					}
				case ev.Conn == 1 && ev.Status == executor.StatusError:
					failed = true
				}
			}
			if !failed {
				t.Errorf("neither connection 1's INSERT nor its COMMIT failed:\n%s", compact(res))
			}
			if got := res.Final["c"]; len(got) != 0 {
				t.Errorf("final c = %v; want empty: the transaction did not commit", got)
			}
			if got := res.Final["p"]; len(got) != 1 || got[0].Compare(target.Row{target.Str("1")}) != 0 {
				t.Errorf("final p = %v; want (1)", got)
			}
		})
	}
}

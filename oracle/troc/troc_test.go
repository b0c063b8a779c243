package troc_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/expectfile"
	"github.com/txlab/txlab/oracle/troc"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

type expectation struct{ file, target, want string }

func readExpectations(t *testing.T) []expectation {
	t.Helper()
	var out []expectation
	for _, fs := range expectfile.Read(t, filepath.Join("testdata", "expect.txt"), 3, 3) {
		out = append(out, expectation{fs[0], fs[1], fs[2]})
	}
	return out
}

// TestKnownCases replays published bug cases and documented behaviours on
// real servers: the bugs must be flagged with the rule of the confirmed
// defect and the statement kind, the documented behaviours (and the same
// SQL where the DBMS or setting does not have the bug) not at all.
func TestKnownCases(t *testing.T) {
	exps := readExpectations(t)
	for _, tgt := range []string{"sqlite", "mariadb", "mariadb-si", "postgres"} {
		t.Run(tgt, func(t *testing.T) {
			dbms, settings := tgt, []string(nil)
			if tgt == "mariadb-si" {
				dbms, settings = "mariadb", []string{"innodb_snapshot_isolation=ON"}
			}
			tg := connecttest.Target(t, dbms, settings...)
			o := newOracle(t, tg)
			for _, e := range exps {
				if e.target != tgt {
					continue
				}
				t.Run(filepath.Base(e.file), func(t *testing.T) {
					c, err := testcase.ParseFile(filepath.Join("testdata", e.file))
					if err != nil {
						t.Fatal(err)
					}
					var opt executor.Options
					if dbms == "sqlite" {
						opt.Isolation = target.Serializable
					}
					res, j := runAndJudge(t, tg, o, c, opt)
					got := "none"
					if e.want == "judged" && j.Undecided == "" {
						got = "judged"
					}
					if len(j.Findings) > 0 {
						f := j.Findings[0]
						got = f.Kind + ":" + string(f.Verdict) + ":" + f.Rule
						if f.Summary == "" || f.Isolation == "" {
							t.Errorf("incomplete finding %+v", f)
						}
					}
					if got != e.want {
						var b strings.Builder
						res.WriteSchedule(&b)
						t.Errorf("got %s, want %s (notes %v)\n%s", got, e.want, j.Notes, b.String())
					}
				})
			}
		})
	}
}

// TestUndecided: a case the model stops on is returned with the reason,
// in its short form, for the campaign's count; one it judges to the end
// has none.
func TestUndecided(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	m := &conform.Checker{}
	defer m.Close()
	o := &troc.Oracle{Model: m}
	for txn, want := range map[string]string{
		"CREATE TABLE t (a INT);\n1> BEGIN;\n1> SELECT a FROM t;\n1> COMMIT;\n":                                              "",
		"CREATE TABLE t (a INT);\n1> BEGIN;\n1> SAVEPOINT s;\n1> SELECT a FROM t;\n1> COMMIT;\n":                             "",
		"CREATE TABLE t (a INT);\n1> BEGIN;\n1> SELECT a FROM t WHERE a IN (SELECT a FROM t EXCEPT SELECT 2);\n1> COMMIT;\n": "not understood: SELECT near EXCEPT",
	} {
		c, err := testcase.ParseString("c", txn)
		if err != nil {
			t.Fatal(err)
		}
		_, j := runAndJudge(t, tg, o, c, executor.Options{})
		if j.Undecided != want || len(j.Findings) != 0 {
			t.Errorf("%q: undecided %q, findings %v; want %q and none", txn, j.Undecided, j.Findings, want)
		}
	}
}

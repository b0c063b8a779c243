package gen

import (
	"slices"
	"testing"

	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// TestFeaturesDrawn: a feature the target supports shows in the generated
// cases (as features.Of reads them), one it does not support never does,
// and every statement parses back to itself.
func TestFeaturesDrawn(t *testing.T) {
	tests := []struct {
		name    string
		d       sqlast.Dialect
		support []string
		want    []string // shows in some of the cases
		never   []string // shows in none
	}{
		{"postgres", sqlast.Postgres,
			[]string{"savepoint", "rollback-to-savepoint", "nowait", "skip-locked", "several-transactions-per-connection"},
			[]string{"savepoint", "rollback-to-savepoint", "nowait", "skip-locked", "several-transactions-per-connection"}, nil},
		{"savepoints without ROLLBACK TO", sqlast.MySQL, []string{"savepoint"},
			[]string{"savepoint"}, []string{"rollback-to-savepoint", "nowait", "skip-locked", "several-transactions-per-connection"}},
		{"none", sqlast.SQLite, nil,
			nil, []string{"savepoint", "rollback-to-savepoint", "several-transactions-per-connection"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[string]int{}
			for i := range 300 {
				c := Case(CaseSeed(7, i), Config{Dialect: tt.d, Features: tt.support})
				for _, f := range features.Of(c) {
					seen[f]++
				}
				for _, st := range c.Steps {
					s, err := sqlast.Parse(tt.d, st.SQL)
					if err != nil {
						t.Fatalf("case %d: %q does not parse: %v", i, st.SQL, err)
					}
					if again := sqlast.Format(tt.d, s); again != st.SQL {
						t.Fatalf("case %d: %q prints as %q", i, st.SQL, again)
					}
				}
				checkSavepoints(t, c)
			}
			for _, f := range tt.want {
				if seen[f] == 0 {
					t.Errorf("%s in none of 300 cases (seen: %v)", f, seen)
				}
			}
			for _, f := range tt.never {
				if seen[f] > 0 {
					t.Errorf("%s in %d cases, but the target does not support it", f, seen[f])
				}
			}
		})
	}
}

// checkSavepoints: a savepoint statement runs inside an explicit
// transaction, and ROLLBACK TO / RELEASE name a savepoint set before in it.
func checkSavepoints(t *testing.T, c *testcase.Case) {
	t.Helper()
	for _, txn := range testcase.Transactions(c) {
		var set []string
		for _, i := range txn.Steps {
			op, name := testcase.SavepointOf(c.Steps[i].SQL)
			switch {
			case op == "":
			case !txn.Explicit:
				t.Fatalf("%q outside an explicit transaction:\n%s", c.Steps[i].SQL, c)
			case op == testcase.SavepointSet:
				set = append(set, name)
			case !slices.Contains(set, name):
				t.Fatalf("%q before its SAVEPOINT:\n%s", c.Steps[i].SQL, c)
			}
		}
	}
}

// TestConnections: several transactions share a connection only where the
// target supports it, each connection runs one at least, and a
// connection's transactions do not overlap.
func TestConnections(t *testing.T) {
	shared := 0
	for i := range 300 {
		c := Case(CaseSeed(9, i), Config{Dialect: sqlast.Postgres, Features: []string{"several-transactions-per-connection"}})
		conns := map[int]bool{}
		for _, st := range c.Steps {
			conns[st.Conn] = true
		}
		for k := 1; k <= len(conns); k++ {
			if !conns[k] {
				t.Fatalf("case %d: connection %d runs nothing, connections %v", i, k, conns)
			}
		}
		open := map[int]bool{}
		perConn := map[int]int{}
		for _, st := range c.Steps {
			switch testcase.ControlOf(st.SQL) {
			case testcase.Begin:
				if open[st.Conn] {
					t.Fatalf("case %d: connection %d begins inside a transaction:\n%s", i, st.Conn, c)
				}
				open[st.Conn] = true
				perConn[st.Conn]++
			case testcase.Commit, testcase.Rollback:
				open[st.Conn] = false
			default:
				if !open[st.Conn] {
					perConn[st.Conn]++
				}
			}
		}
		for _, n := range perConn {
			if n > 1 {
				shared++
				break
			}
		}
	}
	if shared == 0 {
		t.Error("no case of 300 runs two transactions on one connection")
	}
}

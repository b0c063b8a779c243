package gen

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	tscope "github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/testcase"
)

// TestLockStrengthsAndLockTable: with PostgreSQL's features the generator
// draws FOR KEY SHARE, FOR NO KEY UPDATE and LOCK TABLE, every LOCK TABLE
// inside a BEGIN … COMMIT/ROLLBACK of its connection (PostgreSQL refuses
// it outside one), every statement parsing back and passing the scope
// check; without the features,
// and on the MySQL family, none of them.
func TestLockStrengthsAndLockTable(t *testing.T) {
	pg := []string{"for-key-share", "for-no-key-update", "lock-table"}
	rules := map[sqlast.Dialect]tscope.Rules{
		sqlast.Postgres: tscope.For(target.Info{DBMS: "postgres", Dialect: sqlast.Postgres, Schema: "txlab"}, false),
		sqlast.MySQL:    tscope.For(target.Info{DBMS: "mariadb", Dialect: sqlast.MySQL, Schema: "txlab"}, false),
	}
	for _, c := range []struct {
		d     sqlast.Dialect
		feats []string
		want  bool
	}{
		{sqlast.Postgres, pg, true},
		{sqlast.Postgres, nil, false},
		{sqlast.MySQL, pg, false},
	} {
		counts := map[string]int{}
		for seed := uint64(1); seed <= 300; seed++ {
			k := Case(seed, Config{Dialect: c.d, Features: c.feats})
			open := map[int]bool{}
			for _, st := range k.Steps {
				switch testcase.ControlOf(st.SQL) {
				case testcase.Begin:
					open[st.Conn] = true
				case testcase.Commit, testcase.Rollback:
					open[st.Conn] = false
				}
				for _, s := range []string{"FOR KEY SHARE", "FOR NO KEY UPDATE", "LOCK TABLE"} {
					if strings.Contains(st.SQL, s) {
						counts[s]++
					}
				}
				if strings.HasPrefix(st.SQL, "LOCK TABLE") && !open[st.Conn] {
					t.Fatalf("seed %d: %s outside a transaction of connection %d", seed, st.SQL, st.Conn)
				}
				if _, err := sqlast.Parse(c.d, st.SQL); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, st.SQL, err)
				}
				if err := tscope.Check(st.SQL, rules[c.d]); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, st.SQL, err)
				}
			}
		}
		for _, s := range []string{"FOR KEY SHARE", "FOR NO KEY UPDATE", "LOCK TABLE"} {
			if (counts[s] > 0) != c.want {
				t.Errorf("%s with %v: %d statements with %s", c.d, c.feats, counts[s], s)
			}
		}
	}
}

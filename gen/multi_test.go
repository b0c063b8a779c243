package gen

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/mysql"
	"github.com/txlab/txlab/target/postgres"
	"github.com/txlab/txlab/target/sqlite"
	"github.com/txlab/txlab/testcase"
)

// crossTableFeatures are the writes across tables gen/multi.go draws.
var crossTableFeatures = []string{"multi-table-update", "multi-table-delete", "merge", "cte-write"}

// crossTableOf names the write across tables st is, "" for another.
func crossTableOf(d sqlast.Dialect, sql string) string {
	st, err := sqlast.Parse(d, sql)
	if err != nil {
		return ""
	}
	switch st := st.(type) {
	case *sqlast.Update:
		if st.MultiTable() {
			return "multi-table-update"
		}
	case *sqlast.Delete:
		if st.MultiTable() {
			return "multi-table-delete"
		}
	case *sqlast.Merge:
		return "merge"
	case *sqlast.With:
		if st.Writes() {
			return "cte-write"
		}
	}
	return ""
}

// checkCrossTable generates n cases with the writes across tables the
// target supports, runs them on tg and fails when the DBMS rejects 1 % or
// more of those statements as invalid, when one it supports is never
// drawn, or when features.Of does not name exactly the ones drawn.
func checkCrossTable(t *testing.T, tg target.Target, n int, prep sessionPrep) {
	t.Helper()
	info := tg.Info()
	var feats []string
	for _, f := range crossTableFeatures {
		if slices.Contains(info.Features, f) {
			feats = append(feats, f)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	drawn := map[string]int{}
	total := &tally{classes: map[target.ErrorClass]int{}}
	var invalid []string
	for i := range n {
		seed := CaseSeed(20261127, i)
		c := Case(seed, Config{Dialect: info.Dialect, Features: feats})
		inCase := map[string]bool{}
		var multi []testcase.Step
		for _, st := range c.Steps {
			if f := crossTableOf(info.Dialect, st.SQL); f != "" {
				drawn[f]++
				inCase[f] = true
				multi = append(multi, st)
			}
		}
		for _, f := range features.Of(c) {
			if slices.Contains(crossTableFeatures, f) && !inCase[f] {
				t.Errorf("seed %s: features.Of names %s, which the case does not draw", c.Seed, f)
			}
			delete(inCase, f)
		}
		for f := range inCase {
			t.Errorf("seed %s: features.Of misses %s", c.Seed, f)
		}
		before := len(total.invalid)
		if err := runCase(ctx, tg, c, prep, total); err != nil {
			t.Fatalf("case seed %d: %v\n%s", seed, err, c)
		}
		for _, inv := range total.invalid[before:] {
			for _, st := range multi {
				if strings.HasSuffix(inv, "\n    "+st.SQL) {
					invalid = append(invalid, inv)
					break
				}
			}
		}
	}
	count := 0
	for _, f := range feats {
		count += drawn[f]
		if drawn[f] == 0 {
			t.Errorf("%s: no %s drawn in %d cases", info.DBMS, f, n)
		}
	}
	t.Logf("%s: drawn %v; all statements: %s", info.DBMS, drawn, total)
	if count > 0 && float64(len(invalid)) >= maxInvalid*float64(count) {
		t.Errorf("%s rejected %d of %d writes across tables as invalid:\n%s", info.DBMS, len(invalid), count, strings.Join(invalid, "\n"))
	}
	if total.ratio() >= maxInvalid {
		t.Errorf("%s rejected %.2f%% of all statements as invalid:\n%s", info.DBMS, 100*total.ratio(), strings.Join(total.invalid, "\n"))
	}
}

func TestCrossTableSQLite(t *testing.T) {
	tg, err := sqlite.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkCrossTable(t, tg, numCases(300), nil)
}

func TestCrossTableMariaDB(t *testing.T) {
	srv := localdbtest.Server(t, localdb.MariaDB)
	tg, err := mysql.OpenURL(t.Context(), srv.DSN(), "txlab")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkCrossTable(t, tg, numCases(200), func(ctx context.Context, s target.Session) error {
		_, err := s.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = 0")
		return err
	})
}

func TestCrossTablePostgres(t *testing.T) {
	srv := localdbtest.Server(t, localdb.Postgres)
	tg, err := postgres.Open(t.Context(), srv.DSN(), "", "txlab")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkCrossTable(t, tg, numCases(200), func(ctx context.Context, s target.Session) error {
		_, err := s.Exec(ctx, "SET lock_timeout = '20ms'")
		return err
	})
}

package gen

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	targetscope "github.com/txlab/txlab/target/scope"
	"github.com/txlab/txlab/target/sqlite"
	"github.com/txlab/txlab/testcase"
)

// maxInvalid is the share of generated statements a DBMS may reject as
// syntax or semantic errors.
const maxInvalid = 0.01

// tally counts the outcomes of running generated cases.
type tally struct {
	stmts   int
	classes map[target.ErrorClass]int
	invalid []string // "error: statement" for every syntax-class error
}

func (t *tally) ratio() float64 {
	if t.stmts == 0 {
		return 0
	}
	return float64(len(t.invalid)) / float64(t.stmts)
}

func (t *tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d statements, %d invalid (%.3f%%); errors by class:", t.stmts, len(t.invalid), 100*t.ratio())
	for _, c := range []target.ErrorClass{target.ClassSyntax, target.ClassDuplicateKey, target.ClassConstraint,
		target.ClassData, target.ClassDeadlock, target.ClassSerialization, target.ClassLockTimeout,
		target.ClassBusy, target.ClassAborted, target.ClassPrivilege, target.ClassOther, target.ClassConnection} {
		if n := t.classes[c]; n > 0 {
			fmt.Fprintf(&b, " %s=%d", c, n)
		}
	}
	return b.String()
}

// sessionPrep is run on every step session before the case, so that a
// lock wait ends quickly instead of stalling the sequential run (the
// validity check is about statements, not about blocking).
type sessionPrep func(ctx context.Context, s target.Session) error

// runCase runs c's setup (which must succeed) and then its steps one after
// the other in submitted order, each connection on its own session, and
// records every step's outcome in tl. After an error that ends the
// transaction the session is rolled back, like the executor does, so the
// statements after it are still checked by the DBMS.
func runCase(ctx context.Context, tg target.Target, c *testcase.Case, prep sessionPrep, tl *tally) error {
	if err := tg.Reset(ctx); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	setup, err := tg.Open(ctx)
	if err != nil {
		return err
	}
	defer setup.Close()
	for _, q := range c.Setup {
		if _, err := setup.Exec(ctx, q); err != nil {
			return fmt.Errorf("setup statement %q: %w", q, err)
		}
	}
	if err := tg.Adopt(ctx, targetscope.Created(tg.Info().Dialect, c.Setup)); err != nil {
		return fmt.Errorf("adopt: %w", err)
	}
	sessions := map[int]target.Session{}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	for _, conn := range c.Conns() {
		s, err := tg.Open(ctx)
		if err != nil {
			return err
		}
		sessions[conn] = s
		if prep != nil {
			if err := prep(ctx, s); err != nil {
				return fmt.Errorf("session setup: %w", err)
			}
		}
	}
	for _, st := range c.Steps {
		s := sessions[st.Conn]
		_, err := s.Exec(ctx, st.SQL)
		tl.stmts++
		if err == nil {
			continue
		}
		e := target.AsError(err)
		if e == nil {
			return fmt.Errorf("step %q: %w", st.SQL, err)
		}
		tl.classes[e.Class]++
		if e.Class == target.ClassSyntax {
			tl.invalid = append(tl.invalid, fmt.Sprintf("seed %s: %s\n    %s", c.Seed, e.Message, st.SQL))
		}
		if e.Class == target.ClassAborted {
			// The adapter did not flag the first error as fatal: roll back
			// and check this statement again in autocommit.
			s.Exec(ctx, "ROLLBACK")
			tl.stmts--
			tl.classes[e.Class]--
			if _, err := s.Exec(ctx, st.SQL); err != nil {
				if e := target.AsError(err); e != nil && e.Class == target.ClassSyntax {
					tl.invalid = append(tl.invalid, fmt.Sprintf("seed %s: %s\n    %s", c.Seed, e.Message, st.SQL))
				}
			}
			tl.stmts++
			continue
		}
		if e.RolledBack {
			s.Exec(ctx, "ROLLBACK")
		}
	}
	return nil
}

// checkValidity generates n cases for d, runs them on tg and fails when
// more than maxInvalid of the statements are rejected as invalid.
func checkValidity(t *testing.T, tg target.Target, d sqlast.Dialect, n int, prep sessionPrep) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tl := &tally{classes: map[target.ErrorClass]int{}}
	for i := range n {
		seed := CaseSeed(20240601, i)
		// Every feature the target supports: the validity bound holds for them too.
		c := Case(seed, Config{Dialect: d, Features: tg.Info().Features})
		if err := runCase(ctx, tg, c, prep, tl); err != nil {
			t.Fatalf("case seed %d: %v\n%s", seed, err, c)
		}
	}
	t.Logf("%s: %s", d, tl)
	if tl.stmts < 5*n {
		t.Errorf("only %d statements in %d cases", tl.stmts, n)
	}
	if tl.ratio() >= maxInvalid {
		t.Errorf("%s rejected %.2f%% of generated statements as invalid (limit %.0f%%):\n%s",
			d, 100*tl.ratio(), 100*maxInvalid, strings.Join(tl.invalid, "\n"))
	}
}

// numCases is def, a fifth of it with -short, or $TXLAB_GEN_CASES when set
// (for a longer measurement).
func numCases(def int) int {
	if n, err := strconv.Atoi(os.Getenv("TXLAB_GEN_CASES")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return def / 5
	}
	return def
}

// TestRunCaseCounts makes sure the harness sees invalid statements at all:
// a hand-written case with two invalid steps must count exactly two.
func TestRunCaseCounts(t *testing.T) {
	ctx := context.Background()
	tg, err := sqlite.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c := &testcase.Case{
		Setup: []string{"CREATE TABLE t0 (c0 INT PRIMARY KEY)", "INSERT INTO t0 VALUES (1)"},
		Steps: []testcase.Step{
			{Conn: 1, SQL: "BEGIN"},
			{Conn: 1, SQL: "SELECT c9 FROM t0"},
			{Conn: 2, SQL: "INSERT INTO t0 VALUES (1)"},
			{Conn: 1, SQL: "SELEC 1"},
			{Conn: 1, SQL: "COMMIT"},
		},
	}
	tl := &tally{classes: map[target.ErrorClass]int{}}
	if err := runCase(ctx, tg, c, nil, tl); err != nil {
		t.Fatal(err)
	}
	if tl.stmts != 5 || len(tl.invalid) != 2 || tl.classes[target.ClassDuplicateKey] != 1 {
		t.Errorf("got %s, want 5 statements, 2 invalid, 1 duplicate key", tl)
	}
}

func TestValiditySQLite(t *testing.T) {
	n := numCases(300)
	ctx := context.Background()
	tg, err := sqlite.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkValidity(t, tg, sqlast.SQLite, n, nil)
}

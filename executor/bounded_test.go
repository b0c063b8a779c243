package executor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/sqlite"
	"github.com/txlab/txlab/testcase"
)

// rowsOf is a SELECT of n rows of one 100-letter value on SQLite: 148
// bytes each as target.RowSize counts them.
func rowsOf(n string) string {
	return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " + n + ") SELECT printf('%.100c', 'v') FROM c"
}

// TestBoundedCase: what a case keeps is bounded per statement and, across
// its statements, per case (a case of many large SELECTs keeps no more
// than one's worth), and a final state past the bounds is not kept; each
// says why in Result.Truncated, and the statements' events count what
// was dropped.
func TestBoundedCase(t *testing.T) {
	old := target.CurrentLimits()
	t.Cleanup(func() { target.SetLimits(old) })
	target.SetLimits(target.Limits{Rows: 50, Bytes: 40 * 148})
	tg, err := sqlite.Open(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	for _, tc := range []struct {
		name      string
		body      string
		kept      []int   // rows kept per step
		truncated []int64 // rows dropped per step
		why       string  // in Result.Truncated; "" for a whole run
	}{
		{"whole", "1> " + rowsOf("30") + ";\n", []int{30}, []int64{0}, ""},
		{"per-statement-rows", "1> WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 80) SELECT x FROM c;\n", []int{50}, []int64{30}, "connection 1's statement 1 returned 80 rows, of which txlab kept the first 50"},
		{"per-statement-bytes", "1> " + rowsOf("45") + ";\n", []int{40}, []int64{5}, "connection 1's statement 1 returned 45 rows"},
		{"per-case", "1> " + rowsOf("30") + ";\n2> " + rowsOf("30") + ";\n1> " + rowsOf("30") + ";\n", []int{30, 10, 0}, []int64{0, 20, 30}, "connection 2's statement 2 returned 30 rows, of which txlab kept the first 10"},
		{"final-state", "1> INSERT INTO t SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 60) SELECT x FROM c);\n", []int{-1}, []int64{0}, "the final state (table t) has more than txlab keeps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testcase.ParseString(tc.name, "CREATE TABLE t (v INT);\n"+tc.body)
			if err != nil {
				t.Fatal(err)
			}
			res, err := executor.Run(t.Context(), tg, c, executor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) != len(tc.kept) {
				t.Fatalf("%d events, want %d", len(res.Events), len(tc.kept))
			}
			for i, ev := range res.Events {
				if want := tc.kept[i]; want >= 0 && len(ev.Rows) != want || ev.Truncated != tc.truncated[i] {
					t.Errorf("step %d kept %d rows and dropped %d; want %d and %d", i+1, len(ev.Rows), ev.Truncated, tc.kept[i], tc.truncated[i])
				}
			}
			if tc.why == "" && res.Truncated != "" || !strings.Contains(res.Truncated, tc.why) {
				t.Errorf("Truncated %q, want %q", res.Truncated, tc.why)
			}
			if whole := tc.why == "" || !strings.HasPrefix(tc.why, "the final state"); whole != (res.Final != nil) {
				t.Errorf("final state %v", res.Final)
			}
		})
	}
}

// panicky is a real target whose sessions panic on one statement, as an
// adapter with a bug would.
type panicky struct{ target.Target }

func (p panicky) Open(ctx context.Context) (target.Session, error) {
	s, err := p.Target.Open(ctx)
	return panickySession{s}, err
}

type panickySession struct{ target.Session }

func (s panickySession) Exec(ctx context.Context, q string) (*target.Result, error) {
	if strings.Contains(q, "'panic'") {
		var m map[string]int
		m[q]++ // a nil map: the runtime panics
	}
	return s.Session.Exec(ctx, q)
}

// TestStatementPanic: a panic in a statement's goroutine fails the run
// with one line naming it, instead of ending the process with a trace.
func TestStatementPanic(t *testing.T) {
	tg, err := sqlite.Open(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	c, err := testcase.ParseString("panic", "CREATE TABLE t (v INT);\n1> SELECT 1;\n2> SELECT 'panic';\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = executor.Run(t.Context(), panicky{tg}, c, executor.Options{})
	if err == nil || !strings.Contains(err.Error(), "internal error: assignment to entry in nil map (at executor_test.panickySession.Exec") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v; want one line naming the panic", err)
	}
}

// Package targettest is a conformance suite for target adapters: each adapter's
// tests open a real DBMS and call these checks, so that every family is held
// to the same contract (isolation levels, result text, error classes, lock-wait
// introspection, the ownership policy of Reset/Adopt, Dump order).
package targettest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/scope"
)

// Ctx returns a context that ends with the test (or after a minute).
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Session opens a session closed at the end of the test.
func Session(t testing.TB, tg target.Target) target.Session {
	t.Helper()
	s, err := tg.Open(Ctx(t))
	if err != nil {
		t.Fatalf("open session: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// MustExec runs statements on s and fails the test on any error.
func MustExec(t testing.TB, s target.Session, stmts ...string) *target.Result {
	t.Helper()
	var res *target.Result
	for _, q := range stmts {
		var err error
		if res, err = s.Exec(Ctx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return res
}

// Fresh resets the target and runs setup statements in autocommit, then adopts
// the tables they created.
func Fresh(t testing.TB, tg target.Target, setup ...string) {
	t.Helper()
	ctx := Ctx(t)
	if err := tg.Reset(ctx); err != nil {
		t.Fatalf("reset: %v", err)
	}
	s, err := tg.Open(ctx)
	if err != nil {
		t.Fatalf("open session: %v", err)
	}
	defer s.Close()
	MustExec(t, s, setup...)
	if err := tg.Adopt(ctx, scope.Created(tg.Info().Dialect, setup)); err != nil {
		t.Fatalf("adopt: %v", err)
	}
}

// Isolation sets every supported level, reads it back with readback (a query
// returning one value) and compares it, lower-cased, with want[level]. It then
// checks that an unsupported level is refused with an error naming every
// supported level.
func Isolation(t *testing.T, tg target.Target, readback string, want map[target.Level]string) {
	ctx := Ctx(t)
	s := Session(t, tg)
	if len(tg.Levels()) == 0 {
		t.Fatal("Levels() is empty")
	}
	if err := target.CheckLevel("", tg.DefaultLevel(), tg.Levels()); err != nil {
		t.Errorf("default level %s is not among Levels() %v", tg.DefaultLevel(), tg.Levels())
	}
	for _, l := range tg.Levels() {
		if err := s.SetIsolation(ctx, l); err != nil {
			t.Errorf("SetIsolation(%s): %v", l, err)
			continue
		}
		res := MustExec(t, s, readback)
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			t.Fatalf("%s returned %v", readback, res.Rows)
		}
		if got := strings.ToLower(res.Rows[0][0].S); got != want[l] {
			t.Errorf("after SetIsolation(%s) the server reports %q, want %q", l, got, want[l])
		}
	}
	for _, l := range target.AllLevels {
		if target.CheckLevel("", l, tg.Levels()) == nil {
			continue
		}
		err := s.SetIsolation(ctx, l)
		var ue *target.UnsupportedLevelError
		if !errors.As(err, &ue) {
			t.Errorf("SetIsolation(%s) = %v, want *UnsupportedLevelError", l, err)
			continue
		}
		for _, sup := range tg.Levels() {
			if !strings.Contains(err.Error(), string(sup)) {
				t.Errorf("error %q does not name supported level %s", err, sup)
			}
		}
	}
}

// Rows checks result text: integers, doubles, strings and NULL, the column
// names, affected-row counts, and that an empty result set is not nil.
func Rows(t *testing.T, tg target.Target) {
	Fresh(t, tg, "CREATE TABLE r (id INT PRIMARY KEY, d DOUBLE PRECISION, s VARCHAR(20))")
	s := Session(t, tg)
	res := MustExec(t, s, "INSERT INTO r VALUES (1, 1.5, 'a'), (2, NULL, NULL), (3, 2, 'x y'), (-4, 0.1, '')")
	if res.Affected != 4 || res.Rows != nil {
		t.Errorf("INSERT: Affected=%d Rows=%v, want 4 and nil", res.Affected, res.Rows)
	}
	res = MustExec(t, s, "UPDATE r SET s = 'z' WHERE id >= 2")
	if res.Affected != 2 {
		t.Errorf("UPDATE: Affected=%d, want 2", res.Affected)
	}
	res = MustExec(t, s, "SELECT id, d, s FROM r ORDER BY id")
	if want := []string{"id", "d", "s"}; !reflect.DeepEqual(res.Columns, want) {
		t.Errorf("columns %v, want %v", res.Columns, want)
	}
	want := []target.Row{
		{target.Str("-4"), target.Str("0.1"), target.Str("")},
		{target.Str("1"), target.Str("1.5"), target.Str("a")},
		{target.Str("2"), target.NullValue, target.Str("z")},
		{target.Str("3"), target.Str("2"), target.Str("z")},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows %v, want %v", res.Rows, want)
	}
	res = MustExec(t, s, "SELECT id FROM r WHERE id > 100")
	if res.Rows == nil || len(res.Rows) != 0 {
		t.Errorf("empty result: Rows=%#v, want empty non-nil", res.Rows)
	}
}

// ErrorCase is one line of an errors file: a statement and the class and code
// it must fail with.
type ErrorCase struct {
	Class target.ErrorClass
	Code  string
	SQL   string
}

// ReadErrors parses an errors file: "setup: SQL" lines, then
// "class code: SQL" lines; '#' starts a comment line.
func ReadErrors(path string) (setup []string, cases []ErrorCase, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, sql, ok := strings.Cut(line, ":")
		if !ok {
			return nil, nil, fmt.Errorf("%s:%d: want 'setup: SQL' or 'class code: SQL'", path, n)
		}
		sql = strings.TrimSpace(sql)
		f := strings.Fields(head)
		switch {
		case len(f) == 1 && f[0] == "setup":
			setup = append(setup, sql)
		case len(f) == 2:
			cases = append(cases, ErrorCase{Class: target.ErrorClass(f[0]), Code: f[1], SQL: sql})
		default:
			return nil, nil, fmt.Errorf("%s:%d: bad head %q", path, n, head)
		}
	}
	return setup, cases, sc.Err()
}

// Errors runs every case of an errors file (see ReadErrors) in autocommit on
// a fresh database and checks the class and code of the error.
func Errors(t *testing.T, tg target.Target, path string) {
	setup, cases, err := ReadErrors(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	Fresh(t, tg, setup...)
	s := Session(t, tg)
	for _, c := range cases {
		t.Run(c.SQL, func(t *testing.T) {
			_, err := s.Exec(Ctx(t), c.SQL)
			e := target.AsError(err)
			if e == nil {
				t.Fatalf("error %v, want a *target.Error of class %s", err, c.Class)
			}
			if e.Class != c.Class || e.Code != c.Code {
				t.Errorf("got %s/%s (%s), want %s/%s", e.Class, e.Code, e.Message, c.Class, c.Code)
			}
		})
	}
}

// execAsync runs q on s in the background.
func execAsync(s target.Session, q string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := s.Exec(context.Background(), q)
		done <- err
	}()
	return done
}

// waitFor polls Waiting until session id is reported waiting (want=true) or
// not; it fails the test after a few seconds.
func waitFor(t *testing.T, tg target.Target, id string, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, err := tg.Waiting(Ctx(t), []string{id})
		if err != nil {
			t.Fatalf("Waiting: %v", err)
		}
		if w[id] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: Waiting still %v after 10s", id, w[id])
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Waiting blocks one session on a row lock held by another and checks that
// Waiting reports exactly the blocked session, and no longer does once the
// holder commits.
func Waiting(t *testing.T, tg target.Target) {
	Fresh(t, tg, "CREATE TABLE w (id INT PRIMARY KEY, v INT)", "INSERT INTO w VALUES (1, 0)")
	holder, blocked := Session(t, tg), Session(t, tg)
	if holder.ID() == blocked.ID() {
		t.Fatalf("two sessions share ID %s", holder.ID())
	}
	MustExec(t, holder, "BEGIN", "UPDATE w SET v = 1 WHERE id = 1")
	done := execAsync(blocked, "UPDATE w SET v = 2 WHERE id = 1")
	waitFor(t, tg, blocked.ID(), true)
	w, err := tg.Waiting(Ctx(t), []string{holder.ID(), blocked.ID()})
	if err != nil || w[holder.ID()] {
		t.Errorf("Waiting = %v, %v; the lock holder must not be waiting", w, err)
	}
	select {
	case err := <-done:
		t.Fatalf("blocked statement finished while the lock was held: %v", err)
	default:
	}
	MustExec(t, holder, "COMMIT")
	if err := <-done; err != nil {
		t.Fatalf("blocked statement after commit: %v", err)
	}
	waitFor(t, tg, blocked.ID(), false)
	res := MustExec(t, holder, "SELECT v FROM w")
	if len(res.Rows) != 1 || res.Rows[0][0].S != "2" {
		t.Errorf("final state %v, want v=2", res.Rows)
	}
}

// Deadlock makes two transactions wait on each other and checks that exactly
// one fails as a rolled-back deadlock victim while the other proceeds.
func Deadlock(t *testing.T, tg target.Target) {
	Fresh(t, tg, "CREATE TABLE d (id INT PRIMARY KEY, v INT)", "INSERT INTO d VALUES (1, 0), (2, 0)")
	a, b := Session(t, tg), Session(t, tg)
	MustExec(t, a, "BEGIN", "UPDATE d SET v = 1 WHERE id = 1")
	MustExec(t, b, "BEGIN", "UPDATE d SET v = 2 WHERE id = 2")
	doneA := execAsync(a, "UPDATE d SET v = 1 WHERE id = 2")
	waitFor(t, tg, a.ID(), true)
	_, errB := b.Exec(Ctx(t), "UPDATE d SET v = 2 WHERE id = 1")
	if errB == nil {
		// b proceeded, so a must be the victim; otherwise a finishes after
		// b's transaction ends.
		MustExec(t, b, "COMMIT")
	}
	errA := <-doneA
	victims := 0
	for _, err := range []error{errA, errB} {
		if err == nil {
			continue
		}
		victims++
		e := target.AsError(err)
		if e == nil || e.Class != target.ClassDeadlock || !e.RolledBack {
			t.Errorf("error %#v, want a rolled-back deadlock", err)
		}
	}
	if victims != 1 {
		t.Errorf("%d deadlock victims (a: %v, b: %v), want 1", victims, errA, errB)
	}
	MustExec(t, a, "ROLLBACK")
	MustExec(t, b, "ROLLBACK")
}

// ResetAndDump checks the ownership policy and Dump: names sorted, rows in
// typed order ((1) (2) (10), not as text), the registry hidden; Reset refusing (and dropping nothing)
// while a table txlab did not create exists, and dropping txlab's tables
// otherwise.
func ResetAndDump(t *testing.T, tg target.Target) {
	ctx := Ctx(t)
	Fresh(t, tg,
		// Column defaults are parts of txlab's own tables: they must not
		// count as objects outside the schema when Reset drops the tables.
		"CREATE TABLE zeta (k VARCHAR(10) DEFAULT 'x', v INT DEFAULT 7)",
		"CREATE TABLE alpha (k INT DEFAULT 5)",
		"INSERT INTO zeta VALUES ('b', 2), ('a', NULL), ('b', 10), ('a', 1)",
		"INSERT INTO alpha VALUES (2), (10), (1)")
	st, err := tg.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := target.State{
		"alpha": {{target.Str("1")}, {target.Str("2")}, {target.Str("10")}},
		"zeta": {
			{target.Str("a"), target.NullValue}, {target.Str("a"), target.Str("1")},
			{target.Str("b"), target.Str("2")}, {target.Str("b"), target.Str("10")},
		},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Dump = %v, want %v", st, want)
	}
	if got := st.Tables(); !reflect.DeepEqual(got, []string{"alpha", "zeta"}) {
		t.Errorf("tables %v", got)
	}

	s := Session(t, tg)
	MustExec(t, s, "CREATE TABLE users_data (x INT)")
	err = tg.Reset(ctx)
	if err == nil || !strings.Contains(err.Error(), "users_data") || !strings.Contains(err.Error(), "--") {
		t.Fatalf("Reset with a foreign table = %v, want a refusal naming users_data and the flag to go elsewhere", err)
	}
	if st, err := tg.Dump(ctx); err != nil || len(st) != 2 {
		t.Errorf("after the refused Reset, Dump = %v, %v; want both tables intact", st, err)
	}
	MustExec(t, s, "DROP TABLE users_data")
	if err := tg.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if st, err := tg.Dump(ctx); err != nil || len(st) != 0 {
		t.Errorf("after Reset, Dump = %v, %v; want empty", st, err)
	}
	if _, err := s.Exec(ctx, "SELECT * FROM alpha"); err == nil {
		t.Error("table alpha survived Reset")
	}
}

// ForeignSchema checks Reset on a schema that already holds a user's table
// and no registry (txlab pointed at the wrong schema): the refusal names the
// table and Reset writes nothing, not even the registry. The user's table is
// created and dropped through a session.
func ForeignSchema(t *testing.T, tg target.Target) {
	ctx := Ctx(t)
	s := Session(t, tg)
	MustExec(t, s, "CREATE TABLE customers (id INT)")
	defer MustExec(t, s, "DROP TABLE customers")
	err := tg.Reset(ctx)
	if err == nil || !strings.Contains(err.Error(), "customers") {
		t.Fatalf("Reset = %v, want a refusal naming customers", err)
	}
	if _, err := s.Exec(ctx, "SELECT * FROM "+target.RegistryTable); err == nil {
		t.Errorf("the refused Reset created %s", target.RegistryTable)
	}
}

// ForeignKeys checks Reset and Empty with foreign keys among txlab's
// tables, a parent created first and its children after (ON DELETE
// CASCADE, SET NULL): Empty either empties every table or refuses (the
// executor then starts over with Reset), and Reset drops them all, in
// whatever order the catalog lists them, several times over.
func ForeignKeys(t *testing.T, tg target.Target) {
	ctx := Ctx(t)
	setup := []string{
		"CREATE TABLE fk_p (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE fk_c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES fk_p (id) ON DELETE CASCADE)",
		"CREATE TABLE fk_a (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES fk_c (id) ON DELETE SET NULL)",
		"INSERT INTO fk_p VALUES (1, 10), (2, 20)",
		"INSERT INTO fk_c VALUES (1, 1), (2, 2)",
		"INSERT INTO fk_a VALUES (1, 1)",
	}
	for round := range 3 {
		Fresh(t, tg, setup...)
		s := Session(t, tg)
		// The keys work: a cascade, and a refused orphan.
		MustExec(t, s, "DELETE FROM fk_p WHERE id = 1")
		if _, err := s.Exec(ctx, "INSERT INTO fk_c VALUES (3, 9)"); err == nil {
			t.Errorf("round %d: an orphan child row was accepted: the foreign key is not enforced", round)
		}
		res := MustExec(t, s, "SELECT id, cid FROM fk_a")
		if len(res.Rows) != 1 || !res.Rows[0][1].Null {
			t.Errorf("round %d: fk_a = %v, want its row set to NULL by the cascade", round, res.Rows)
		}
		s.Close()
		if e, ok := target.As[target.Emptier](tg); ok && e.CanEmpty() {
			if names, err := e.Empty(ctx); err == nil {
				st, err := tg.Dump(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range names {
					if len(st[n]) != 0 {
						t.Errorf("round %d: Empty left rows in %s: %v", round, n, st[n])
					}
				}
			}
		}
		if err := tg.Reset(ctx); err != nil {
			t.Fatalf("round %d: Reset with foreign keys among txlab's tables: %v", round, err)
		}
		if st, err := tg.Dump(ctx); err != nil || len(st) != 0 {
			t.Errorf("round %d: after Reset, Dump = %v, %v; want no table", round, st, err)
		}
	}
}

// Bounded checks that an adapter keeps what target.Limits allow of a
// result and counts the rest (target.Result.Truncated), for the row bound
// and the byte bound, and that Dump refuses, with a *target.TruncatedError,
// a final state past them. repeat(n) is the dialect's expression for a
// string of n letters (REPEAT('v', n); SQLite: printf('%.nc', 'v')).
func Bounded(t *testing.T, tg target.Target, repeat func(n int) string) {
	old := target.CurrentLimits()
	t.Cleanup(func() { target.SetLimits(old) })
	const series = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) "
	// A row of one 100-letter value costs 100 + 24 + 24 bytes (RowSize).
	for _, tc := range []struct {
		name      string
		lim       target.Limits
		sql       string
		kept      int
		truncated int64
	}{
		{"whole", target.Limits{Rows: 1000, Bytes: 1 << 20}, series + "SELECT x FROM c", 1000, 0},
		{"rows", target.Limits{Rows: 10, Bytes: 1 << 20}, series + "SELECT x FROM c", 10, 990},
		{"bytes", target.Limits{Rows: 1000, Bytes: 10 * 148}, series + "SELECT " + repeat(100) + " FROM c", 10, 990},
		{"empty", target.Limits{Rows: 1, Bytes: 1}, series + "SELECT x FROM c WHERE x < 0", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target.SetLimits(tc.lim)
			s := Session(t, tg)
			res := MustExec(t, s, tc.sql)
			if len(res.Rows) != tc.kept || res.Truncated != tc.truncated {
				t.Fatalf("kept %d rows, truncated %d; want %d and %d", len(res.Rows), res.Truncated, tc.kept, tc.truncated)
			}
			for i, r := range res.Rows {
				if tc.name == "rows" && r[0].S != fmt.Sprint(i+1) {
					t.Fatalf("row %d is %v: the rows kept are not the result's first", i, r)
				}
			}
			// The session is usable: the rest was read to the end.
			if res := MustExec(t, s, "SELECT 1"); int64(len(res.Rows))+res.Truncated != 1 {
				t.Errorf("after a truncated result, SELECT 1 = %v (%d dropped)", res.Rows, res.Truncated)
			}
		})
	}

	target.SetLimits(target.Limits{Rows: 1000, Bytes: 1 << 20})
	var values []string
	for i := range 30 {
		values = append(values, fmt.Sprintf("(%d)", i))
	}
	Fresh(t, tg, "CREATE TABLE big (v INT)", "CREATE TABLE small (v INT)",
		"INSERT INTO big VALUES "+strings.Join(values, ", "), "INSERT INTO small VALUES (1), (2)")
	ctx := Ctx(t)
	for _, tc := range []struct {
		name string
		lim  target.Limits
		ok   bool
	}{
		{"whole", target.Limits{Rows: 32, Bytes: 1 << 20}, true},
		{"one-table-past-rows", target.Limits{Rows: 20, Bytes: 1 << 20}, false},
		{"tables-together-past-rows", target.Limits{Rows: 31, Bytes: 1 << 20}, false},
		{"past-bytes", target.Limits{Rows: 1000, Bytes: 200}, false},
	} {
		t.Run("dump-"+tc.name, func(t *testing.T) {
			target.SetLimits(tc.lim)
			st, err := tg.Dump(ctx)
			switch {
			case tc.ok && (err != nil || len(st["big"]) != 30 || len(st["small"]) != 2):
				t.Errorf("Dump = %v, %v; want both tables whole", st, err)
			case !tc.ok && (!target.IsTruncated(err) || st != nil):
				t.Errorf("Dump = %v, %v; want a *target.TruncatedError and no state", st, err)
			}
		})
	}
}

package instrument

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// recordCase exercises every instrumented kind in an order with one
// outcome on every DBMS: T1 and T2 update the same row one after the other,
// T2 inserts, T3 deletes in autocommit (wrapped for its pre-read), T4 reads
// a join, T5 rolls back, and T6 is the final read.
const recordCase = `
CREATE TABLE t (id INT PRIMARY KEY, v INT);
CREATE TABLE u (id INT, w INT);
INSERT INTO t VALUES (1, 10), (2, 20);
INSERT INTO u VALUES (1, 100);
1> BEGIN;
1> UPDATE t SET v = 11 WHERE id = 1;
1> COMMIT;
2> BEGIN;
2> UPDATE t SET v = 12 WHERE id = 1;
2> INSERT INTO u VALUES (2, 200);
2> COMMIT;
3> DELETE FROM t WHERE id = 2;
1> SELECT t.v, u.w FROM t JOIN u ON t.id = u.id;
2> BEGIN;
2> UPDATE u SET w = 0;
2> ROLLBACK;
`

// wantRecord is the history in the compact form of render.
const wantRecord = `T0 init ok: INSERT+[r1 r2] INSERT+[r3]
T1 conn1 ok: UPDATE
T2 conn2 ok: UPDATE INSERT+[r4]
T3 conn3 ok: DELETE-[r2:T0]
T4 conn1 ok: SELECT<[r1:T0,T1,T2 r3:T0]
T5 conn2 fail: UPDATE
T6 conn4 ok: SELECT<[r1:T0,T1,T2] SELECT<[r3:T0 r4:T2]
`

// wantRecordMySQL is wantRecord where UPDATEs also read the versions they
// matched (the MySQL family's post-read), T5's failed one included.
const wantRecordMySQL = `T0 init ok: INSERT+[r1 r2] INSERT+[r3]
T1 conn1 ok: UPDATE<[r1:T0]
T2 conn2 ok: UPDATE<[r1:T0,T1] INSERT+[r4]
T3 conn3 ok: DELETE-[r2:T0]
T4 conn1 ok: SELECT<[r1:T0,T1,T2 r3:T0]
T5 conn2 fail: UPDATE<[r3:T0 r4:T2]
T6 conn4 ok: SELECT<[r1:T0,T1,T2] SELECT<[r3:T0 r4:T2]
`

// recordRun instruments c for tg, runs it and records its history.
func recordRun(t *testing.T, tg target.Target, c *testcase.Case) (*Plan, *executor.Result, *history.History) {
	t.Helper()
	p, err := Instrument(c, tg.Info())
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Run(context.Background(), tg, p.Case, executor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := Record(p, res)
	if err != nil {
		t.Fatal(err)
	}
	return p, res, h
}

// rowNames lists the rows' names the history gives, from the final read or
// from the other transactions, sorted.
func rowNames(h *history.History, final bool) string {
	var out []string
	for _, t := range h.Txns {
		if t.Final != final {
			continue
		}
		for _, s := range t.Stmts {
			for r, n := range s.Names {
				out = append(out, r+"="+n)
			}
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func render(h *history.History) string {
	var b strings.Builder
	for _, t := range h.Txns {
		who := fmt.Sprintf("conn%d", t.Session)
		if t.Init {
			who = "init"
		}
		fmt.Fprintf(&b, "T%d %s %s:", t.ID, who, t.Status)
		for _, s := range t.Stmts {
			b.WriteString(" " + s.Kind)
			vs := func(mark string, v []history.Version) {
				if len(v) == 0 {
					return
				}
				var f []string
				for _, x := range v {
					f = append(f, x.Row+":"+x.WList)
				}
				b.WriteString(mark + "[" + strings.Join(f, " ") + "]")
			}
			vs("<", s.Reads)
			vs("-", s.Deleted)
			if len(s.Inserted) > 0 {
				b.WriteString("+[" + strings.Join(s.Inserted, " ") + "]")
			}
			if s.Error != "" {
				b.WriteString("!" + s.Error)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestRecordOnServers(t *testing.T) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			t.Parallel()
			tg := connecttest.Target(t, dbms)
			c, err := testcase.ParseString("record", recordCase)
			if err != nil {
				t.Fatal(err)
			}
			_, res, h := recordRun(t, tg, c)
			want := wantRecord
			if tg.Info().Dialect == sqlast.MySQL {
				want = wantRecordMySQL
			}
			if got := render(h); got != want {
				t.Errorf("history:\n%swant:\n%s", got, want)
			}
			// Rows are named by their key (t) or, without one, by every
			// column (u): from the INSERTs' literals, and from the
			// final state's values in the final read.
			if got, want := rowNames(h, false), "r1=t(id=1) r2=t(id=2) r3=u(id=1, w=100) r4=u(id=2, w=200)"; got != want {
				t.Errorf("names from the INSERTs: %s, want %s", got, want)
			}
			if got, want := rowNames(h, true), "r1=t(id=1) r3=u(id=1, w=100) r4=u(id=2, w=200)"; got != want {
				t.Errorf("names from the final read: %s, want %s", got, want)
			}
			// The history must survive its own file format.
			var sb strings.Builder
			if err := history.Write(&sb, h); err != nil {
				t.Fatal(err)
			}
			if _, err := history.Read(strings.NewReader(sb.String())); err != nil {
				t.Errorf("recorded history does not read back: %v", err)
			}
			// Users see the original result: no hidden columns, except in
			// txlab's own reads, which return nothing else.
			ownReads := 0
			for _, ev := range res.Events {
				hidden, shown := 0, 0
				for _, col := range ev.Columns {
					if IsHidden(col) {
						hidden++
					} else {
						shown++
					}
				}
				stripped := Strip(ev)
				for _, col := range stripped.Columns {
					if IsHidden(col) && shown > 0 {
						t.Errorf("Strip left %s in %s", col, ev.SQL)
					}
				}
				if shown == 0 && hidden > 0 {
					ownReads++
					if len(stripped.Columns) != hidden {
						t.Errorf("Strip dropped the hidden columns of txlab's own read %s", ev.SQL)
					}
				}
			}
			if ownReads == 0 {
				t.Error("no event of txlab's own reads (the final read) in the schedule")
			}
			testStress(t, tg)
		})
	}
}

// TestInsertSelectRowIDs: every row an INSERT … SELECT inserts gets a
// rowId of its own, on every DBMS, in a session's first such statement
// too (on MariaDB a counter in a user variable numbers them; while the
// variable was NULL, every row got the same number and the history forked
// its versions).
func TestInsertSelectRowIDs(t *testing.T) {
	const insertSelect = `
CREATE TABLE s (a INT);
CREATE TABLE d (a INT);
INSERT INTO s VALUES (1), (2), (3);
1> INSERT INTO d SELECT a FROM s;
1> INSERT INTO d (a) SELECT a + 10 FROM s WHERE a > 1;
2> BEGIN;
2> INSERT INTO d SELECT * FROM d;
2> COMMIT;
`
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			t.Parallel()
			tg := connecttest.Target(t, dbms)
			c, err := testcase.ParseString("insert-select", insertSelect)
			if err != nil {
				t.Fatal(err)
			}
			_, _, h := recordRun(t, tg, c)
			final := h.Txns[len(h.Txns)-1]
			seen := map[string]bool{}
			n := 0
			for _, st := range final.Stmts {
				if st.Table != "d" {
					continue
				}
				for _, v := range st.Reads {
					n++
					if seen[v.Row] {
						t.Errorf("rowId %s twice in the final state of d", v.Row)
					}
					seen[v.Row] = true
				}
			}
			if n != 10 {
				t.Errorf("the final state of d has %d rows, want 10", n)
			}
		})
	}
}

// TestPlanStrip: the instrumented run, stripped, names the case's
// statements as written with the rewritten text in Sent, marks the read
// txlab added before a DELETE (MySQL: no RETURNING) as Added with the
// DELETE's step, and drops the hidden columns.
func TestPlanStrip(t *testing.T) {
	c, err := testcase.ParseString("strip", "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 1);\n1> BEGIN;\n1> SELECT v FROM t;\n1> DELETE FROM t WHERE id = 1;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Instrument(c, target.Info{Dialect: sqlast.MySQL})
	if err != nil {
		t.Fatal(err)
	}
	res := &executor.Result{}
	for i, s := range p.Case.Steps {
		ev := executor.Event{Conn: s.Conn, SQL: s.SQL, Step: i, Status: executor.StatusOK, Affected: -1}
		switch {
		case strings.HasSuffix(s.SQL, "FOR UPDATE"):
			ev.Columns = []string{"txlab_r0", "txlab_w0"}
			ev.Rows = []target.Row{{target.Str("r1"), target.Str("T0")}}
		case strings.HasPrefix(s.SQL, "SELECT"):
			ev.Columns = []string{"v", "txlab_r0", "txlab_w0"}
			ev.Rows = []target.Row{{target.Str("1"), target.Str("r1"), target.Str("T0")}}
		}
		res.Events = append(res.Events, ev)
	}
	p.Strip(res)
	var got []string
	for _, ev := range res.Events {
		got = append(got, fmt.Sprintf("%d %v %s | %s | %v", ev.Step, ev.Added, ev.SQL, ev.Sent, ev.Columns))
	}
	want := []string{
		"0 false BEGIN |  | []",
		"1 false SELECT v FROM t | SELECT v, t.txlab_rowid AS txlab_r0, t.txlab_wlist AS txlab_w0 FROM t | [v]",
		"2 true SELECT t.txlab_rowid AS txlab_r0, t.txlab_wlist AS txlab_w0 FROM t WHERE id = 1 FOR UPDATE |  | [txlab_r0 txlab_w0]",
		"2 false DELETE FROM t WHERE id = 1 |  | []",
		"3 false COMMIT |  | []",
	}
	if !slices.Equal(got, want) {
		t.Errorf("stripped events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// predicateCase: T1 reads by a predicate twice around T2, which moves row
// 2 into the range and inserts row 3 into it.
const predicateCase = `
CREATE TABLE d (id INT PRIMARY KEY, oncall INT);
INSERT INTO d VALUES (1, 1), (2, 0);
1> BEGIN;
1> SELECT id FROM d WHERE oncall = 1;
2> BEGIN;
2> UPDATE d SET oncall = 1 WHERE id = 2;
2> INSERT INTO d VALUES (3, 1);
2> COMMIT;
1> SELECT id FROM d WHERE oncall = 1;
1> COMMIT;
`

// TestRecordPredicates records predicate reads on real servers: the view
// of each SELECT (every row, flagged by its match), the versions T2's
// writes installed with the predicate they match, the final state marked
// final, and users see only the matching rows. At read committed no
// predicate read is recorded (levels below repeatable read permit every
// anti-dependency cycle).
func TestRecordPredicates(t *testing.T) {
	const snapshot = "T1 SELECT p1 seen r1@T0+ r2@T0- reads r1@T0\n" +
		"T1 SELECT p1 seen r1@T0+ r2@T0- reads r1@T0\n" +
		"T2 UPDATE installed r2@T0,T2[p1]\n" +
		"T2 INSERT installed r3@T2[p1]\n" +
		"T3 final\n"
	for _, tc := range []struct {
		dbms  string
		level target.Level
		want  string
	}{
		{"sqlite", target.Serializable, snapshot},
		{"mariadb", target.RepeatableRead, snapshot},
		{"postgres", target.RepeatableRead, snapshot},
		{"postgres", target.ReadCommitted, "T1 SELECT reads r1@T0\nT1 SELECT reads r1@T0 r2@T0,T2 r3@T2\nT2 UPDATE\nT2 INSERT\nT3 final\n"},
	} {
		t.Run(tc.dbms+"/"+string(tc.level), func(t *testing.T) {
			tg := connecttest.Target(t, tc.dbms)
			c, err := testcase.ParseString("predicates", predicateCase)
			if err != nil {
				t.Fatal(err)
			}
			c.Isolation = tc.level
			p, res, h := recordRun(t, tg, c)
			var b strings.Builder
			for _, tx := range h.Txns[1:] { // by transaction, each in statement order
				if tx.Final {
					fmt.Fprintf(&b, "T%d final\n", tx.ID)
					continue
				}
				for _, s := range tx.Stmts {
					fmt.Fprintf(&b, "T%d %s", tx.ID, s.Kind)
					if s.Predicate != "" {
						fmt.Fprintf(&b, " %s seen", s.Predicate)
						for _, v := range s.Seen {
							mark := "-"
							if v.Match(s.Predicate) {
								mark = "+"
							}
							fmt.Fprintf(&b, " %s@%s%s", v.Row, v.WList, mark)
						}
					}
					if len(s.Installed) > 0 {
						b.WriteString(" installed")
						for _, v := range s.Installed {
							fmt.Fprintf(&b, " %s@%s%v", v.Row, v.WList, v.Matches)
						}
					}
					if s.Kind == "SELECT" {
						b.WriteString(" reads")
						for _, v := range s.Reads {
							fmt.Fprintf(&b, " %s@%s", v.Row, v.WList)
						}
					}
					b.WriteString("\n")
				}
			}
			if b.String() != tc.want {
				t.Errorf("history:\n%swant:\n%s", b.String(), tc.want)
			}
			p.Strip(res)
			for _, ev := range res.Events {
				if strings.HasPrefix(ev.SQL, "SELECT") && len(ev.Rows) != 1 && tc.level != target.ReadCommitted {
					t.Errorf("%s shows %d rows to users, want the 1 that matches", ev.SQL, len(ev.Rows))
				}
			}
		})
	}
}

// FuzzInstalledVersions: whatever a write returned, the versions parsed
// have a row and a wList and match only predicates it evaluated.
func FuzzInstalledVersions(f *testing.F) {
	f.Add("r1=T0,T1?10 r2=T0?01", false)
	f.Add("r1=T0?1", true)
	f.Add("r1=?1 =T0?1 r2=T0 r3=T0?111", false)
	f.Fuzz(func(t *testing.T, s string, returning bool) {
		evaluated := []string{"p1", "p2"}
		ev := executor.Event{Columns: []string{MatchedColumn, InstalledColumn}, Rows: []target.Row{{{S: "x"}, {S: s}}}}
		if returning {
			ev = executor.Event{Columns: []string{rowAlias(0), wlistAlias(0), InstalledColumn}, Rows: []target.Row{{{S: "r1"}, {S: "T0"}, {S: s}}}}
		}
		for _, v := range installedVersions(ev, evaluated) {
			if v.Row == "" || v.WList == "" {
				t.Fatalf("version without row or wList from %q: %+v", s, v)
			}
			for _, m := range v.Matches {
				if !slices.Contains(evaluated, m) {
					t.Fatalf("match %s not evaluated", m)
				}
			}
		}
	})
}

// TestUnjudged: a case whose history IsoRel cannot record faithfully says
// why (and is not judged): an XA transaction, a MySQL-family statement
// that commits the transaction implicitly, a rollback to a savepoint (the
// versions it undoes were seen by their transaction), a SKIP LOCKED read
// (an inconsistent view by design); a savepoint that is
// only set or released is recorded as usual.
func TestUnjudged(t *testing.T) {
	head := "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 10);\n1> BEGIN;\n1> UPDATE t SET v = 11 WHERE id = 1;\n"
	for _, c := range []struct {
		d          sqlast.Dialect
		tail, want string
		reason     Reason
	}{
		{sqlast.Postgres, "1> COMMIT;\n", "", NoReason},
		{sqlast.Postgres, "1> SAVEPOINT s;\n1> RELEASE SAVEPOINT s;\n1> COMMIT;\n", "", NoReason},
		{sqlast.Postgres, "1> SAVEPOINT s;\n1> UPDATE t SET v = 12 WHERE id = 1;\n1> ROLLBACK TO SAVEPOINT s;\n1> COMMIT;\n", "a rollback to a savepoint (ROLLBACK TO SAVEPOINT s)", SavepointRollback},
		{sqlast.MySQL, "1> SAVEPOINT s;\n1> rollback work to s;\n1> COMMIT;\n", "a rollback to a savepoint (rollback work to s)", SavepointRollback},
		{sqlast.MySQL, "1> CREATE TABLE u (a INT);\n1> COMMIT;\n", `T1's "CREATE TABLE u (a INT)" commits it implicitly`, ImplicitCommit},
		{sqlast.Postgres, "1> SELECT * FROM t FOR UPDATE skip  locked;\n1> COMMIT;\n", "a read that skips locked rows (SELECT * FROM t FOR UPDATE skip  locked)", SkipLocked},
		{sqlast.MySQL, "1> SELECT * FROM t FOR UPDATE NOWAIT;\n1> COMMIT;\n", "", NoReason},
		{sqlast.MySQL, "1> XA START 'x';\n1> COMMIT;\n", "an XA transaction (XA START 'x')", XATransaction},
	} {
		cs, err := testcase.ParseString("c", head+c.tail)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Instrument(cs, target.Info{Dialect: c.d})
		if err != nil {
			t.Fatal(err)
		}
		if p.Unjudged.Reason != c.reason || p.Unjudged.String() != c.want {
			t.Errorf("%q: unjudged %d %q, want %d %q", c.tail, p.Unjudged.Reason, p.Unjudged, c.reason, c.want)
		}
	}
}

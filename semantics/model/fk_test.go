package model_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// TestForeignKeyHalts: the engine stops, naming the feature, at a
// statement a foreign key can check or act on (testdata/fk.txt), and
// judges reads and writes of columns no key names as before.
func TestForeignKeyHalts(t *testing.T) {
	f, err := os.Open("testdata/fk.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var setup []string
	type fkCase struct {
		line                      int
		reason, sqliteReason, sql string
		affected                  int64
		rows                      []target.Row
	}
	var cases []fkCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, "# setup: "); ok {
			setup = append(setup, s)
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 4 {
			t.Fatalf("fk.txt:%d: want 4 fields", n)
		}
		c := fkCase{line: n, reason: strings.TrimPrefix(parts[0], "-"), sqliteReason: strings.TrimPrefix(parts[1], "-"), sql: parts[2]}
		if a, err := strconv.ParseInt(parts[3], 10, 64); err == nil {
			c.affected = a
		} else {
			c.rows = tuples(strings.Split(parts[3], ";")...)
		}
		cases = append(cases, c)
	}
	ctx := context.Background()
	tg := connecttest.Target(t, "sqlite")
	sess, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, c := range cases {
		for _, run := range []struct {
			rules  model.Rules
			reason string
			failed bool
		}{
			{model.Lookup("postgres", target.ReadCommitted, nil), c.reason, false},
			// PostgreSQL aborts the transaction of a failed statement.
			{model.Lookup("postgres", target.ReadCommitted, nil), "", true},
			{model.Lookup("sqlite", target.Serializable, nil), c.sqliteReason, false},
			{model.Lookup("sqlite", target.Serializable, nil), c.sqliteReason, true},
		} {
			failed := run.failed
			eng := model.NewEngine(run.rules, sqlast.SQLite, sess)
			if err := eng.Setup(ctx, setup); err != nil {
				t.Fatal(err)
			}
			st := &model.Stmt{Conn: 1, SQL: c.sql, Rows: c.rows, Affected: c.affected}
			if failed {
				st.Rows, st.Affected = nil, 0
				st.Err = &target.Error{Class: target.ClassConstraint, Message: "FOREIGN KEY constraint failed"}
			}
			dev, err := eng.Step(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			sess.(target.TempTables).DropTemporary(ctx, eng.Tables())
			if dev != nil {
				t.Errorf("fk.txt:%d: %s (failed: %v): deviation %s: %s", c.line, c.sql, failed, dev.Kind, dev.Text)
				continue
			}
			if got := eng.HaltReason(); got != run.reason && !(failed && run.reason == "") {
				t.Errorf("fk.txt:%d: %s (row locks: %v, failed: %v): halt %q (%s), want %q", c.line, c.sql, run.rules.RowLocks, failed, got, eng.Halted(), run.reason)
			}
		}
	}
}

// TestInlineReferencesMySQL: a MySQL-family column's REFERENCES is a
// foreign key on MariaDB 10.5+ and nothing on MySQL; the model, which
// does not know which, stops at the setup (before any evaluation).
func TestInlineReferencesMySQL(t *testing.T) {
	ctx := context.Background()
	sess, err := connecttest.Target(t, "sqlite").Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	eng := model.NewEngine(model.Lookup("mariadb", target.ReadCommitted, nil), sqlast.MySQL, sess)
	if err := eng.Setup(ctx, []string{"CREATE TABLE c (id INT PRIMARY KEY, pid INT REFERENCES p (id))"}); err != nil {
		t.Fatal(err)
	}
	if got := eng.HaltReason(); got != "not modelled: foreign-key" {
		t.Errorf("halt %q (%s), want not modelled: foreign-key", got, eng.Halted())
	}
}

// TestInnoDBParentLock: InnoDB's foreign key check of a child's INSERT
// locks the parent row shared, so a later UPDATE of that row by another
// transaction must wait (the schedule of
// bugs/doc-innodb-fk-parent-shared-lock.txn, as MariaDB 10.11 ran it); one
// that did not is flagged; where another transaction holds the parent row,
// the check waits, which the model does not follow: it stops.
func TestInnoDBParentLock(t *testing.T) {
	setup := []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES parent (id))",
		"INSERT INTO parent VALUES (1, 10), (2, 20)",
	}
	begin := step{conn: 1, sql: "BEGIN"}
	insert := step{conn: 1, sql: "INSERT INTO child VALUES (1, 1)", affected: 1}
	other := step{conn: 2, sql: "UPDATE parent SET v = 21 WHERE id = 2", affected: 1}
	update := step{conn: 2, sql: "UPDATE parent SET v = 11 WHERE id = 1", affected: 1}
	commit := step{conn: 1, sql: "COMMIT"}
	waited := func(s step, from int) step { s.from = from; return s }
	cases := []fkCase{
		{name: "the UPDATE of the locked parent row waits", steps: []step{begin, insert, other, commit, waited(update, 3)}},
		{name: "doctored: the UPDATE does not wait", steps: []step{begin, insert, other, update, commit}, kind: "incorrect-blocking", at: 3},
		{name: "another transaction holds the parent row", halt: "not modelled: foreign-key", steps: []step{
			{conn: 2, sql: "BEGIN"}, {conn: 2, sql: "UPDATE parent SET v = 12 WHERE id = 1", affected: 1}, begin, insert}},
		{name: "a NULL key locks nothing", steps: []step{begin, {conn: 1, sql: "INSERT INTO child (id) VALUES (2)", affected: 1}, update, commit}},
	}
	runFKCases(t, "mariadb", []target.Level{target.ReadCommitted, target.RepeatableRead}, setup, cases)
}

// fkCase is one schedule of a foreign key test: as the DBMS ran it (no
// kind, no halt), doctored (a bug of kind at step at), or one the model
// stops on (halt); levels, when set, replace the test's.
type fkCase struct {
	name   string
	steps  []step
	halt   string
	kind   string
	at     int
	levels []target.Level
}

// runFKCases replays each case under dbms's rules at each level, on the
// model's copies in embedded SQLite (the tables need no server of dbms).
func runFKCases(t *testing.T, dbms string, levels []target.Level, setup []string, cases []fkCase) {
	t.Helper()
	ctx := context.Background()
	sess, err := connecttest.Target(t, "sqlite").Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, c := range cases {
		ls := c.levels
		if ls == nil {
			ls = levels
		}
		for _, level := range ls {
			t.Run(c.name+"/"+string(level), func(t *testing.T) {
				eng := model.NewEngine(model.Lookup(dbms, level, nil), sqlast.SQLite, sess)
				defer func() {
					if err := sess.(target.TempTables).DropTemporary(ctx, eng.Tables()); err != nil {
						t.Fatal(err)
					}
				}()
				if err := eng.Setup(ctx, setup); err != nil {
					t.Fatal(err)
				}
				if h := eng.Halted(); h != "" {
					t.Fatalf("setup halted: %s", h)
				}
				dev := replay(t, eng, c.steps)
				if c.halt != "" {
					if dev != nil || eng.HaltReason() != c.halt {
						t.Fatalf("deviation %v, halt %q (%s); want halt %q", dev, eng.HaltReason(), eng.Halted(), c.halt)
					}
					return
				}
				outcome{kind: c.kind, verdict: "bug", at: c.at}.check(t, eng, dev)
			})
		}
	}
}

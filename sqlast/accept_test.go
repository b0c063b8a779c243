package sqlast

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "modernc.org/sqlite"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// goldenStmts reads testdata/format_<dialect>.golden as name → statement.
func goldenStmts(t *testing.T, d Dialect) ([]string, map[string]string) {
	data, err := os.ReadFile(filepath.Join("testdata", "format_"+d.String()+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	stmts := map[string]string{}
	for _, block := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
		name, stmt, ok := strings.Cut(block, "\n")
		if !ok || !strings.HasPrefix(name, "-- ") {
			t.Fatalf("malformed golden block %q", block)
		}
		name = strings.TrimPrefix(name, "-- ")
		names = append(names, name)
		stmts[name] = strings.TrimSuffix(stmt, ";")
	}
	return names, stmts
}

// notInDialect lists the golden cases that use a construct the dialect lacks
// (the Supports* helpers say so); the server must reject exactly these with a
// syntax error, so the list cannot silently go stale.
var notInDialect = map[Dialect]map[string]bool{
	MySQL: {},
	Postgres: {
		"replace": true,
	},
	SQLite: {
		"select-for-update":  true,
		"select-for-share":   true,
		"union-right-nested": true,
	},
}

// TestServersAcceptGolden runs every golden statement on a real server of
// each dialect and checks that only the expected ones fail with a syntax
// error. Other errors (unknown column, type mismatch, duplicate table) are
// fine: the schema is a loose fit, the test is about the spelling.
func TestServersAcceptGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB and PostgreSQL servers")
	}
	const cols = "(c0 INT, c1 INT, c2 INT, c3 INT, a INT, b INT, c INT, d INT)"
	check := func(t *testing.T, d Dialect, exec func(string) error, query func(string) (string, error), isSyntax func(error) bool) {
		checkPrecedence(t, d, query)
		for _, tbl := range []string{"t0", "t1", "t2", "t3"} {
			if err := exec("CREATE TABLE " + tbl + " " + cols); err != nil {
				t.Fatal(err)
			}
		}
		names, stmts := goldenStmts(t, d)
		for _, name := range names {
			err := exec(stmts[name])
			syntax := err != nil && isSyntax(err)
			switch {
			case syntax && !notInDialect[d][name]:
				t.Errorf("%s: syntax error: %v\n%s", name, err, stmts[name])
			case !syntax && notInDialect[d][name]:
				t.Errorf("%s: expected a syntax error, got %v\n%s", name, err, stmts[name])
			case err != nil:
				t.Logf("%s: %v (not a syntax error)", name, err)
			}
		}
	}

	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "a.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		check(t, SQLite, func(s string) error { _, err := db.Exec(s); return err }, sqlQuery(db),
			func(err error) bool {
				return strings.Contains(err.Error(), "syntax error") || strings.Contains(err.Error(), "incomplete input")
			})
	})

	t.Run("mariadb", func(t *testing.T) {
		srv := localdbtest.Server(t, localdb.MariaDB)
		db, err := sql.Open("mysql", srv.DriverDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		for _, s := range []string{"CREATE DATABASE sqlast", "USE sqlast"} {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		check(t, MySQL, func(s string) error { _, err := db.Exec(s); return err }, sqlQuery(db),
			func(err error) bool {
				var me *mysql.MySQLError
				return errors.As(err, &me) && me.Number == 1064 // ER_PARSE_ERROR
			})
	})

	t.Run("postgres", func(t *testing.T) {
		srv := localdbtest.Server(t, localdb.Postgres)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, srv.DriverDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		check(t, Postgres, func(s string) error {
			_, err := conn.Exec(ctx, s)
			if err != nil {
				// Leave no aborted transaction behind for the next statement.
				_, _ = conn.Exec(ctx, "ROLLBACK")
			}
			return err
		}, func(s string) (string, error) {
			rows, err := conn.Query(ctx, s)
			if err != nil {
				return "", err
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					return "", err
				}
				for _, v := range vals {
					out = append(out, fmt.Sprint(v))
				}
			}
			return strings.Join(out, " | "), rows.Err()
		}, func(err error) bool {
			var pe *pgconn.PgError
			return errors.As(err, &pe) && pe.Code == "42601" // syntax_error
		})
	})
}

// sqlQuery runs a one-row query and joins its values as text.
func sqlQuery(db *sql.DB) func(string) (string, error) {
	return func(s string) (string, error) {
		rows, err := db.Query(s)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return "", err
		}
		var out []string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return "", err
			}
			for _, v := range vals {
				out = append(out, fmt.Sprint(v))
			}
		}
		return strings.Join(out, " | "), rows.Err()
	}
}

// precedenceCases are expressions whose value changes if the server groups
// them differently from the AST; each evaluates to a distinct answer under
// the wrong grouping.
func precedenceCases() []Expr {
	one, two, three := num("1"), num("2"), num("3")
	return []Expr{
		bin("-", num("10"), bin("-", num("5"), two)),                                     // 7, not 3
		bin("*", bin("+", one, two), three),                                              // 9, not 7
		bin("%", num("7"), bin("*", two, two)),                                           // 3, not 2
		bin("-", one, num("-1")),                                                         // 2
		&Unary{Op: "-", X: num("-1")},                                                    // 1
		&Unary{Op: "-", X: bin("-", two, three)},                                         // 1, not -5
		bin("AND", bin("OR", true_, true_), false_),                                      // false, not true
		&Unary{Op: "NOT", X: bin("AND", false_, false_)},                                 // true, not false
		&Unary{Op: "NOT", X: bin("OR", true_, false_)},                                   // false
		&IsNull{X: &Unary{Op: "NOT", X: null}},                                           // true, not false
		&IsNull{X: bin("=", one, null), Not: true},                                       // false
		bin("=", &IsNull{X: null}, false_),                                               // false
		&Between{X: bin("+", one, two), Lo: three, Hi: bin("+", three, one)},             // true
		&Between{X: one, Lo: &Unary{Op: "-", X: two}, Hi: bin("-", one, two), Not: true}, // true
		&In{X: bin("+", one, one), List: []Expr{two, bin("*", three, three)}},            // true
		bin("OR", &Unary{Op: "NOT", X: true_}, &Unary{Op: "NOT", X: bin("=", one, two)}), // true
		bin("=", bin("<", one, two), true_),                                              // true
	}
}

// checkPrecedence evaluates each precedence case on the server twice, as
// Format renders it and fully parenthesized, and wants the same answers.
func checkPrecedence(t *testing.T, d Dialect, query func(string) (string, error)) {
	t.Helper()
	for _, e := range precedenceCases() {
		minimal, full := FormatExpr(d, e), formatExprFull(d, e)
		got, err := query("SELECT " + minimal + ", " + full)
		if err != nil {
			t.Errorf("SELECT %s, %s: %v", minimal, full, err)
			continue
		}
		a, b, _ := strings.Cut(got, " | ")
		if a != b {
			t.Errorf("%s = %s but %s = %s", minimal, a, full, b)
		}
	}
}

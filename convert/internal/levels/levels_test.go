package levels

import (
	"testing"

	"github.com/txlab/txlab/target"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		level target.Level
		scope Scope
		rest  string
	}{
		{"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE", target.Serializable, Session, ""},
		{"set session transaction isolation level read committed", target.ReadCommitted, Session, ""},
		{"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", target.RepeatableRead, Next, ""},
		{"SET GLOBAL TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", target.ReadUncommitted, Global, ""},
		{"SET default_transaction_isolation = 'repeatable read'", target.RepeatableRead, Session, ""},
		{"SET @@session.transaction_isolation = 'READ-COMMITTED'", target.ReadCommitted, Session, ""},
		{"SET tx_isolation='SERIALIZABLE'", target.Serializable, Session, ""},
		{"BEGIN ISOLATION LEVEL REPEATABLE READ", target.RepeatableRead, Begin, "BEGIN"},
		{"BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY", target.Serializable, Begin, "BEGIN TRANSACTION READ ONLY"},
		{"START TRANSACTION ISOLATION LEVEL READ COMMITTED", target.ReadCommitted, Begin, "START TRANSACTION"},
		{"BEGIN", "", None, ""},
		{"SELECT 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE'", "", None, ""},
	} {
		l, scope, rest := Of(tc.sql)
		if l != tc.level || scope != tc.scope || rest != tc.rest {
			t.Errorf("Of(%q) = %q, %d, %q; want %q, %d, %q", tc.sql, l, scope, rest, tc.level, tc.scope, tc.rest)
		}
	}
}

func TestResolve(t *testing.T) {
	stmts := func(sqls ...string) []Stmt {
		var out []Stmt
		for i, s := range sqls {
			out = append(out, Stmt{SQL: s, Line: i + 1})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		in    []Stmt
		out   []string
		level target.Level
		err   bool
	}{
		{"session setting", stmts("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "BEGIN", "SELECT 1", "COMMIT"),
			[]string{"", "BEGIN", "SELECT 1", "COMMIT"}, target.ReadCommitted, false},
		{"begin with a level", stmts("BEGIN ISOLATION LEVEL SERIALIZABLE", "COMMIT", "BEGIN ISOLATION LEVEL SERIALIZABLE", "ROLLBACK"),
			[]string{"BEGIN", "COMMIT", "BEGIN", "ROLLBACK"}, target.Serializable, false},
		{"PostgreSQL's SET TRANSACTION first in a transaction", stmts("BEGIN", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "SELECT 1", "COMMIT"),
			[]string{"BEGIN", "", "SELECT 1", "COMMIT"}, target.RepeatableRead, false},
		{"MySQL's SET TRANSACTION before the next", stmts("SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", "BEGIN", "COMMIT"),
			[]string{"", "BEGIN", "COMMIT"}, target.ReadUncommitted, false},
		{"autocommit statements only", stmts("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE", "SELECT 1"),
			[]string{"", "SELECT 1"}, target.Serializable, false},
		{"an autocommit read beside a transaction does not count", stmts("SELECT 1", "BEGIN ISOLATION LEVEL SERIALIZABLE", "COMMIT"),
			[]string{"SELECT 1", "BEGIN", "COMMIT"}, target.Serializable, false},
		{"two levels", stmts("BEGIN ISOLATION LEVEL SERIALIZABLE", "COMMIT", "BEGIN", "COMMIT"), nil, "", true},
		{"another session's level", stmts("SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE"), nil, "", true},
	} {
		out, l, err := Resolve("connection 1", tc.in)
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v, want error %v", tc.name, err, tc.err)
			continue
		}
		if tc.err {
			continue
		}
		if l != tc.level || len(out) != len(tc.out) {
			t.Errorf("%s: %q at %q, want %q at %q", tc.name, out, l, tc.out, tc.level)
			continue
		}
		for i := range out {
			if out[i] != tc.out[i] {
				t.Errorf("%s: %q, want %q", tc.name, out, tc.out)
				break
			}
		}
	}
}

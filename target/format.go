package target

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// FormatValue turns a value scanned by a database/sql driver into deterministic
// text, so that the same stored value always prints the same way: integers in
// decimal, floats in the shortest form that reads back exactly, bytes as-is.
func FormatValue(v any) Value {
	switch x := v.(type) {
	case nil:
		return NullValue
	case []byte:
		return Str(string(x))
	case string:
		return Str(x)
	case int64:
		return Str(strconv.FormatInt(x, 10))
	case int:
		return Str(strconv.Itoa(x))
	case uint64:
		return Str(strconv.FormatUint(x, 10))
	case float64:
		return Str(strconv.FormatFloat(x, 'g', -1, 64))
	case float32:
		return Str(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case bool:
		if x {
			return Str("1")
		}
		return Str("0")
	case time.Time:
		return Str(x.Format("2006-01-02 15:04:05.999999999Z07:00"))
	}
	return Str(fmt.Sprint(v))
}

// ReturnsRows guesses from its text whether a statement returns a result set,
// so that database/sql adapters can choose Query (rows) or Exec (affected
// rows): database/sql cannot give both for one statement.
func ReturnsRows(sql string) bool {
	switch strings.ToUpper(firstWord(sql)) {
	case "SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "PRAGMA":
		return true
	}
	return returningRE.MatchString(sql)
}

var returningRE = regexp.MustCompile(`(?i)\bRETURNING\b`)

// ChangesRows reports whether sql is a data-changing statement whose
// affected-row count means something (INSERT, UPDATE, DELETE, REPLACE,
// MERGE). Drivers that keep the last count around (SQLite's changes())
// would otherwise report it for BEGIN or COMMIT too.
func ChangesRows(sql string) bool {
	switch strings.ToUpper(firstWord(sql)) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE":
		return true
	}
	return false
}

// KeepsDefinitions reports whether sql only reads or writes rows, or
// controls a transaction or a session: running it cannot create a table or
// change one's definition. Anything else counts as a schema statement.
func KeepsDefinitions(sql string) bool {
	switch strings.ToUpper(firstWord(sql)) {
	case "SELECT", "INSERT", "REPLACE", "UPDATE", "DELETE", "WITH", "VALUES",
		"BEGIN", "START", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "SET", "SHOW",
		"LOCK", "UNLOCK": // table locks: held by a transaction or session, no definition changes
		return true
	}
	return false
}

func firstWord(sql string) string {
	s := strings.TrimLeft(sql, " \t\r\n(")
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(s)
	}
	return s[:end]
}

// ReadRows drains rows into a Result with every value formatted by
// FormatValue. An empty result set gives non-nil, empty Rows. It keeps
// what CurrentLimits allow and counts the rest in Result.Truncated,
// reading it to the end without converting it, so a huge result costs
// time, not memory.
func ReadRows(rows *sql.Rows) (*Result, error) {
	return ReadRowsContext(context.Background(), rows)
}

// ReadRowsContext is ReadRows keeping to the Budget of ctx too (a case's
// statements: see WithBudget).
func ReadRowsContext(ctx context.Context, rows *sql.Rows) (*Result, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: cols, Rows: []Row{}, Affected: -1}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	keep := KeeperFor(ctx)
	defer keep.Done()
	for rows.Next() {
		if keep.Full() {
			keep.Keep(0)
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make(Row, len(cols))
		for i, v := range vals {
			row[i] = FormatValue(v)
			vals[i] = nil // the driver's copy of a value past the bound is not kept
		}
		if keep.Keep(RowSize(row)) {
			res.Rows = append(res.Rows, row)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res.Truncated = keep.Dropped
	return res, nil
}

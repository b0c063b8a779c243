package target

import (
	"regexp"
	"strings"
)

// A case's statements are the user's SQL: txlab runs them as written. Its
// promise that it changes nothing outside its own database (Info.Schema)
// holds only if no statement names an object elsewhere. OutsideSchema is
// the check the executor applies before a case runs.

const identRE = "`[^`]+`|\"[^\"]+\"|[A-Za-z_][A-Za-z0-9_$]*"

var (
	// qualifiedRE finds schema.object right after a keyword that is
	// followed by a table's name (never by a column's, so the qualifier is
	// a database or schema, not a table alias).
	qualifiedRE = regexp.MustCompile(`(?i)\b(?:TABLE|TABLES|INTO|UPDATE|FROM|JOIN|EXISTS|VIEW|SEQUENCE|TRIGGER|PROCEDURE|FUNCTION)\s+(` + identRE + `)\s*\.\s*(?:` + identRE + `)`)
	// otherDatabaseRE finds statements that switch, create, drop or attach
	// a whole database.
	otherDatabaseRE = regexp.MustCompile(`(?i)^\s*(?:USE\b|ATTACH\b|DETACH\b|(?:CREATE|DROP|ALTER)\s+(?:DATABASE|SCHEMA)\b)`)
	stringRE        = regexp.MustCompile(`'(?:[^'\\]|\\.|'')*'`)
)

// OutsideSchema returns, for a statement that may change something, the
// name of an object it names outside schema (schema.table, or the
// statement itself when it switches, creates, drops or attaches a
// database), and "" when it stays inside. Statements that only read (a
// SELECT of information_schema) are left alone. SQLite's temp schema
// counts as part of its main one. It reads the text, not a parse: a qualified
// name later in a comma-separated list is not seen.
func OutsideSchema(sql, schema string) string {
	if otherDatabaseRE.MatchString(sql) {
		return strings.TrimSpace(sql)
	}
	switch strings.ToUpper(firstWord(sql)) {
	case "SELECT", "VALUES", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "BEGIN", "START", "COMMIT", "ROLLBACK", "END", "SAVEPOINT", "RELEASE":
		if !strings.Contains(strings.ToUpper(sql), " INTO ") {
			return ""
		}
	}
	text := stringRE.ReplaceAllString(sql, "''")
	for _, m := range qualifiedRE.FindAllStringSubmatchIndex(text, -1) {
		q := strings.Trim(text[m[2]:m[3]], "`\"")
		if strings.EqualFold(q, schema) || strings.EqualFold(schema, "main") && strings.EqualFold(q, "temp") {
			continue
		}
		return strings.TrimSpace(text[m[0]:m[1]])
	}
	return ""
}

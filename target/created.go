package target

import (
	"strings"
	"unicode"
)

// CreatedTables returns the names of the permanent tables, views and
// sequences (MariaDB's are tables) a statement creates or renames into
// existence (CREATE TABLE, CREATE VIEW, CREATE SEQUENCE,
// CREATE TABLE … AS, ALTER TABLE … RENAME TO, RENAME TABLE … TO), unquoted
// and without their schema. Temporary tables are left out: they never
// appear among a schema's tables. txlab records as its own only the tables
// its statements created, never a table it merely finds in its schema.
func CreatedTables(sql string) []string {
	toks := identTokens(sql)
	if len(toks) == 0 {
		return nil
	}
	kw := func(i int, words ...string) bool {
		if i >= len(toks) || toks[i].quoted {
			return false
		}
		for _, w := range words {
			if strings.EqualFold(toks[i].text, w) {
				return true
			}
		}
		return false
	}
	switch {
	case kw(0, "CREATE"):
		i, temp := 1, false
		// CREATE's modifiers come before TABLE or VIEW; MySQL's view
		// options (ALGORITHM = …, DEFINER = …, SQL SECURITY …) among them.
		for ; i < len(toks) && i < 16; i++ {
			if kw(i, "TEMPORARY", "TEMP") {
				temp = true
			}
			if kw(i, "TABLE", "VIEW", "SEQUENCE") {
				break
			}
			if kw(i, "INDEX", "TRIGGER", "FUNCTION", "PROCEDURE", "SCHEMA", "DATABASE", "USER", "ROLE", "EVENT", "TYPE") {
				return nil
			}
		}
		if i >= len(toks) || temp {
			return nil
		}
		i++
		if kw(i, "IF") && kw(i+1, "NOT") && kw(i+2, "EXISTS") {
			i += 3
		}
		if name, ok := qualifiedName(toks, i); ok {
			return []string{name}
		}
	case kw(0, "ALTER") && kw(1, "TABLE", "VIEW"):
		for i := 2; i < len(toks); i++ {
			if kw(i, "RENAME") && !kw(i+1, "COLUMN", "INDEX", "KEY", "CONSTRAINT") {
				j := i + 1
				if kw(j, "TO", "AS") {
					j++
				}
				if name, ok := qualifiedName(toks, j); ok {
					return []string{name}
				}
			}
		}
	case kw(0, "RENAME") && kw(1, "TABLE"):
		var out []string
		for i := 2; i < len(toks); i++ {
			if kw(i, "TO") {
				if name, ok := qualifiedName(toks, i+1); ok {
					out = append(out, name)
				}
			}
		}
		return out
	}
	return nil
}

// CreatedBy returns the tables CreatedTables finds in each of stmts.
func CreatedBy(stmts []string) []string {
	var out []string
	for _, q := range stmts {
		out = append(out, CreatedTables(q)...)
	}
	return out
}

// qualifiedName reads [schema .] name at toks[i] and returns name.
func qualifiedName(toks []token, i int) (string, bool) {
	if i >= len(toks) || toks[i].punct {
		return "", false
	}
	name := toks[i].text
	if i+2 < len(toks) && toks[i+1].punct && toks[i+1].text == "." && !toks[i+2].punct {
		name = toks[i+2].text
	}
	return name, name != ""
}

// token is an identifier or keyword (quoted says it was written in quotes),
// or one punctuation character.
type token struct {
	text          string
	quoted, punct bool
}

// identTokens splits the start of a statement into tokens, skipping
// comments and string literals. It knows every dialect's quotes (`…`, "…",
// […]) and comments (--, #, /* */); it is enough to find the names a
// statement's head gives, not a parser.
func identTokens(sql string) []token {
	var out []token
	for i := 0; i < len(sql) && len(out) < 256; {
		c := sql[i]
		switch {
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 4
		case c == '\'':
			i++
			for i < len(sql) {
				if sql[i] == '\\' {
					i += 2
					continue
				}
				if sql[i] == '\'' {
					if i+1 < len(sql) && sql[i+1] == '\'' {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			var b strings.Builder
			i++
			for i < len(sql) {
				if sql[i] == closer {
					if closer != ']' && i+1 < len(sql) && sql[i+1] == closer {
						b.WriteByte(closer)
						i += 2
						continue
					}
					break
				}
				b.WriteByte(sql[i])
				i++
			}
			i++
			out = append(out, token{text: b.String(), quoted: true})
		case c == '_' || c == '$' || c >= 0x80 || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(sql) && (sql[j] == '_' || sql[j] == '$' || sql[j] >= 0x80 || unicode.IsLetter(rune(sql[j])) || unicode.IsDigit(rune(sql[j]))) {
				j++
			}
			out = append(out, token{text: sql[i:j]})
			i = j
		case unicode.IsSpace(rune(c)):
			i++
		default:
			out = append(out, token{text: string(c), punct: true})
			i++
		}
	}
	return out
}

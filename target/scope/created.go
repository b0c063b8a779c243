package scope

import "github.com/txlab/txlab/sqlast"

// Created returns the names of the permanent tables, views and sequences
// (MariaDB's are tables) that stmts create or rename into existence
// (CREATE TABLE, CREATE VIEW, CREATE SEQUENCE, CREATE TABLE … AS, ALTER
// TABLE … RENAME TO, RENAME TABLE … TO), unquoted and without their schema,
// read with the dialect's lexer as the server reads them by default.
// Temporary tables are left out: they never appear among a schema's tables.
// txlab records as its own only the tables its statements created, never a
// table it merely finds in its schema (target.Owned.Adopt); a statement the
// lexer cannot read creates nothing it records.
func Created(d sqlast.Dialect, stmts []string) []string {
	var out []string
	for _, sql := range stmts {
		toks, _, err := lex(d, sql, readings(d)[0])
		if err == nil {
			out = append(out, created(toks)...)
		}
	}
	return out
}

// created finds the names one statement's tokens create.
func created(toks []token) []string {
	kw := func(i int, words ...string) bool { return i < len(toks) && toks[i].is(words...) }
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
		if name, ok := lastPart(toks, i); ok {
			return []string{name}
		}
	case kw(0, "ALTER") && kw(1, "TABLE", "VIEW"):
		for i := 2; i < len(toks); i++ {
			if kw(i, "RENAME") && !kw(i+1, "COLUMN", "INDEX", "KEY", "CONSTRAINT") {
				j := i + 1
				if kw(j, "TO", "AS") {
					j++
				}
				if name, ok := lastPart(toks, j); ok {
					return []string{name}
				}
			}
		}
	case kw(0, "RENAME") && kw(1, "TABLE"):
		var out []string
		for i := 2; i < len(toks); i++ {
			if kw(i, "TO") {
				if name, ok := lastPart(toks, i+1); ok {
					out = append(out, name)
				}
			}
		}
		return out
	}
	return nil
}

// lastPart reads [schema .] name at toks[i] and returns name.
func lastPart(toks []token, i int) (string, bool) {
	if i >= len(toks) || !toks[i].identLike() {
		return "", false
	}
	name := toks[i].text
	if i+2 < len(toks) && toks[i+1].punct(".") && toks[i+2].identLike() {
		name = toks[i+2].text
	}
	return name, name != ""
}

// Package scope decides whether a case's statement may run: txlab promises
// to change nothing outside its own database (target.Info.Schema), and a
// case file is the user's SQL, run as written. Check reads a statement with
// a lexer of its dialect (MySQL family, PostgreSQL, SQLite), classifies it
// against an allowlist of statement kinds a case needs (queries, DML, the
// DDL of tables, indexes and views, transaction control, harmless session
// settings) and finds every table reference — FROM and JOIN lists, UPDATE
// and DELETE targets, INTO, DDL names, REFERENCES, subqueries and CTEs at
// any depth — which must be unqualified or qualified by txlab's own schema.
//
// What would outlive the case or change how the server reads the next
// statement is refused too: XA and prepared transactions, the connection's
// encoding (SET NAMES, client_encoding, character_set_*), bytes that are
// not UTF-8, and names longer than the server keeps.
//
// It is strict: what it cannot read or does not know is refused, because a
// statement the check reads differently from the server is how a hostile
// case gets past it. Rules.Trust (--trust-case) lets statement kinds it does
// not know run; it never lets through a name outside the schema, server
// administration, file access or dynamic SQL.
package scope

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// Rules say what a statement may do on one target.
type Rules struct {
	Dialect sqlast.Dialect
	// Schema is txlab's own database (MySQL), schema (PostgreSQL) or, on
	// SQLite, "main" (temp counts as its own too).
	Schema string
	// Trust lets statement kinds the check does not know run (--trust-case).
	Trust bool
	// DBMS is target.Info.DBMS, for what one DBMS of a dialect adds to it
	// (DuckDB reads PostgreSQL's syntax, with table functions that read
	// files); "" for none.
	DBMS string
}

// For returns the rules of target info, trusting unknown statement kinds when
// trust is set.
func For(info target.Info, trust bool) Rules {
	d := info.Dialect
	if d == sqlast.DialectNone {
		d, _ = sqlast.ParseDialect(info.DBMS)
	}
	return Rules{Dialect: d, Schema: info.Schema, Trust: trust, DBMS: info.DBMS}
}

// Refusal is why a statement may not run.
type Refusal struct {
	Reason string
	// Unknown marks a statement kind the check does not know: Trust runs it.
	Unknown bool
}

func (r *Refusal) Error() string { return r.Reason }

func refuse(format string, args ...any) *Refusal {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

func unknown(what string) *Refusal {
	return &Refusal{Reason: fmt.Sprintf("%s is not a statement kind txlab knows to stay inside its database (--trust-case runs it)", what), Unknown: true}
}

// Check returns nil when sql, one statement, may run under r, and otherwise
// a *Refusal saying why in one line.
func Check(sql string, r Rules) error {
	if r.Dialect == sqlast.DialectNone {
		return refuse("no SQL dialect to read the statement with")
	}
	// txlab's connections talk UTF-8 (and a case may not change that, see
	// encodingVariable): bytes that are no UTF-8 are another encoding's,
	// where a lead byte can swallow the quote or backslash after it, and
	// the server would read other SQL than the check does.
	if at := invalidUTF8(sql); at >= 0 {
		return refuse("is not valid UTF-8 at byte %d: txlab talks to the server in UTF-8 only, and another encoding's bytes can read as other SQL there", at)
	}
	// Whether strings take backslash escapes is the session's choice
	// (MySQL's NO_BACKSLASH_ESCAPES and ANSI_QUOTES, PostgreSQL's
	// standard_conforming_strings): a statement with a backslash in a
	// string or name must pass read every way.
	rs := readings(r.Dialect)
	toks, backslash, err := lex(r.Dialect, sql, rs[0])
	if err != nil {
		return refuse("%v", err)
	}
	if err := r.check(toks); err != nil {
		return err
	}
	if !backslash {
		return nil
	}
	for _, rd := range rs[1:] {
		alt, _, err := lex(r.Dialect, sql, rd)
		if err != nil {
			return refuse("a string holds a backslash and reads differently when the server takes backslash escapes in strings or not: write '' for a quote")
		}
		if err := r.check(alt); err != nil {
			return err
		}
	}
	return nil
}

func (r Rules) check(toks []token) error {
	if len(toks) == 0 {
		return nil
	}
	for i, t := range toks {
		if t.punct(";") && i < len(toks)-1 {
			return refuse("holds more than one statement")
		}
		if (t.kind == tWord || t.kind == tQuoted || t.dq) && strings.EqualFold(t.text, target.RegistryTable) {
			return refuse("names %s, txlab's record of the tables it owns", target.RegistryTable)
		}
		if err := r.nameLength(t); err != nil {
			return err
		}
	}
	if toks[len(toks)-1].punct(";") {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return nil // nothing but a ';'
	}
	c := &checker{r: r, toks: toks, declared: map[string]bool{}}
	err := c.statement()
	if err == nil {
		err = c.finish()
	}
	var ref *Refusal
	if err != nil {
		ref, _ = err.(*Refusal)
		if ref == nil {
			ref = refuse("%v", err)
		}
	}
	if ref != nil && !(ref.Unknown && r.Trust) {
		return ref
	}
	if ref != nil {
		// A kind the check does not know, trusted: every name in it is
		// still checked, as a plain walk over the whole statement.
		c = &checker{r: r, toks: toks, declared: map[string]bool{}, writes: true, first: toks[0].up}
		for _, t := range toks {
			c.createTable = c.createTable || c.first == "CREATE" && t.is("TABLE")
			c.indexStmt = c.indexStmt || c.ddl() && t.is("INDEX")
		}
		c.declare()
		c.frames = []frame{{}}
		c.i = 0
		if toks[0].is("SET") {
			// The setting's name is no table: the walk starts at its value.
			for c.i < len(toks) && !toks[c.i].punct("=") && !toks[c.i].is("TO") {
				c.i++
			}
		}
		if err := c.walk(); err != nil {
			return err
		}
		return c.finish()
	}
	return nil
}

// invalidUTF8 returns the byte offset of the first byte of s that is not
// UTF-8, or -1.
func invalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i
			}
		}
	}
	return -1
}

// Name limits: PostgreSQL truncates a longer name to NAMEDATALEN-1 bytes
// with only a notice, so the table a case made is not the one txlab
// recorded, and the next run refuses the schema as holding someone else's
// table; MySQL and MariaDB refuse names over 64 characters (error 1059),
// and txlab says so before the server does. SQLite has no limit.
const (
	pgMaxName    = 63 // bytes
	mysqlMaxName = 64 // characters
	// mysql50 is the prefix that makes MySQL and MariaDB read a name as
	// a file name (tables of MySQL 5.0 and older).
	mysql50 = "#mysql50#"
)

// nameLength refuses an identifier (a word or a quoted name; strings
// are left alone, even where one may name a table) longer than the
// server keeps.
func (r Rules) nameLength(t token) error {
	if t.kind != tWord && t.kind != tQuoted {
		return nil
	}
	if t.kind == tQuoted && strings.ContainsAny(t.text, "\\\x00") {
		// txlab's registry and sweep quote names as strings, where a
		// backslash means something else on MySQL: a table named a\ was
		// made, then never recorded, and every later run refused the
		// schema until someone dropped it by hand.
		return refuse("names %q: txlab does not take names with a backslash or NUL", short(t.text))
	}
	switch r.Dialect {
	case sqlast.Postgres:
		if len(t.text) > pgMaxName {
			return refuse("names %q, %d bytes long: PostgreSQL cuts names to %d bytes, and txlab would not know the object it made", short(t.text), len(t.text), pgMaxName)
		}
	case sqlast.MySQL:
		if len(t.text) >= len(mysql50) && strings.EqualFold(t.text[:len(mysql50)], mysql50) {
			// A name in the server's file-name encoding: #mysql50#t is t
			// to the server, not to the check (txlab's record read and
			// emptied through it), and DML through it left MariaDB
			// 10.11's t undroppable until a restart (seventh probe).
			return refuse("names %q: txlab does not take names with the %s prefix", short(t.text), mysql50)
		}
		if n := utf8.RuneCountInString(t.text); n > mysqlMaxName {
			return refuse("names %q, %d characters long: the server takes names of %d characters at most", short(t.text), n, mysqlMaxName)
		}
	}
	return nil
}

// short cuts a long name for a message.
func short(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 32
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// part is one part of a dotted name.
type part struct {
	text   string
	quoted bool
}

func (p part) String() string { return p.text }

func join(ps []part) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.text
	}
	return strings.Join(s, ".")
}

func (r Rules) where() string {
	switch r.Dialect {
	case sqlast.Postgres:
		return fmt.Sprintf("txlab's schema %q", r.Schema)
	case sqlast.SQLite:
		return "txlab's database (main and temp)"
	}
	return fmt.Sprintf("txlab's database %q", r.Schema)
}

// own says whether a qualifier names txlab's own schema. MySQL and
// PostgreSQL compare exactly (after PostgreSQL folds an unquoted name):
// on a server with case-sensitive names TXLAB is another database.
func (r Rules) own(p part) bool {
	switch r.Dialect {
	case sqlast.SQLite:
		return strings.EqualFold(p.text, "main") || strings.EqualFold(p.text, "temp") || strings.EqualFold(p.text, r.Schema)
	case sqlast.Postgres:
		if !p.quoted {
			return strings.ToLower(p.text) == r.Schema
		}
	}
	return p.text == r.Schema
}

// system says whether a qualifier names a catalog a case may read (and
// never write: see finish).
func (r Rules) system(p part) bool {
	name := p.text
	if !p.quoted || r.Dialect == sqlast.MySQL {
		name = strings.ToLower(name)
	}
	switch r.Dialect {
	case sqlast.MySQL:
		// mysql and sys too: the bug corpus reads mysql.transaction_registry
		// and mysql.innodb_table_stats.
		return name == "information_schema" || name == "performance_schema" || name == "mysql" || name == "sys"
	case sqlast.Postgres:
		return name == "information_schema" || name == "pg_catalog"
	}
	return false
}

// finish refuses catalog tables in a statement that writes or locks: a case
// may read information_schema or pg_catalog, never change them.
func (c *checker) finish() error {
	switch c.first {
	case "SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN", "DESCRIBE", "DESC":
		if !c.writes {
			return nil
		}
	}
	if len(c.systemRefs) > 0 {
		return refuse("names %s in a statement that writes or locks: a case may only read the catalogs", c.systemRefs[0])
	}
	if len(c.catalogRefs) > 0 {
		return refuse("names %s, a system catalog, in a statement that writes or locks", c.catalogRefs[0])
	}
	return nil
}

package scope

import (
	"fmt"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

type tokKind uint8

const (
	tWord   tokKind = iota // an unquoted identifier or keyword
	tQuoted                // a quoted identifier: "x" (not MySQL), `x`, [x]
	tString                // a string literal of any form; MySQL's "x" too
	tNumber
	tVar   // @x, @@x, @@global.x, $1, ?, :x
	tPunct // one operator or punctuation character, or :: and :=
)

type token struct {
	kind tokKind
	text string // the source text; for quoted identifiers and strings, the value
	up   string // text in upper case, for words
	pos  int
	// dq marks a MySQL "…" token: a string, or an identifier under
	// ANSI_QUOTES, which the session may have set.
	dq bool
}

// identLike says whether t can name an object: a word, a quoted identifier,
// or a string (SQLite reads 'x' as a name where one is expected, MySQL "x"
// under ANSI_QUOTES).
func (t token) identLike() bool {
	return t.kind == tWord || t.kind == tQuoted || t.kind == tString
}

func (t token) is(words ...string) bool {
	if t.kind != tWord {
		return false
	}
	for _, w := range words {
		if t.up == w {
			return true
		}
	}
	return false
}

func (t token) punct(p string) bool { return t.kind == tPunct && t.text == p }

// lexer splits one statement into tokens for one dialect. Comments are
// dropped; anything it does not know how to read is an error, never a
// guess, because a statement the check reads differently from the server
// is how a hostile statement gets past it.
type lexer struct {
	d   sqlast.Dialect
	src string
	i   int
	// backslash says '…' strings take backslash escapes: MySQL's default,
	// PostgreSQL's with standard_conforming_strings off. The session or
	// server decides which holds, so a statement whose strings hold a
	// backslash is read both ways (see Check).
	backslash bool
	// dqBackslash is backslash for MySQL's "…": off under ANSI_QUOTES, where
	// "…" is a name, while '…' keeps its escapes.
	dqBackslash bool
	toks        []token
	// sawBackslash reports a backslash inside a string or quoted name.
	sawBackslash bool
}

func lex(d sqlast.Dialect, src string, r reading) ([]token, bool, error) {
	l := &lexer{d: d, src: src, backslash: r.backslash, dqBackslash: r.dqBackslash}
	if err := l.run(); err != nil {
		return nil, l.sawBackslash, err
	}
	return l.toks, l.sawBackslash, nil
}

// reading is one way the session may read strings: whether '…' and MySQL's
// "…" take backslash escapes.
type reading struct{ backslash, dqBackslash bool }

// readings are the ways a dialect's server may read strings, the default
// first: MySQL's default, NO_BACKSLASH_ESCAPES and ANSI_QUOTES;
// PostgreSQL's standard_conforming_strings on and off.
func readings(d sqlast.Dialect) []reading {
	switch d {
	case sqlast.MySQL:
		return []reading{{true, true}, {false, false}, {true, false}}
	case sqlast.Postgres:
		return []reading{{false, false}, {true, false}}
	}
	return []reading{{}}
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) peek(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func (l *lexer) errorf(format string, args ...any) error {
	return fmt.Errorf("cannot read the statement at offset %d: "+format, append([]any{l.i}, args...)...)
}

// nameBefore says whether the token before pos is a name (a word, a quoted
// identifier, or a "…" that ANSI_QUOTES may make one) that ends at pos.
func (l *lexer) nameBefore(pos int) bool {
	if len(l.toks) == 0 || pos == 0 {
		return false
	}
	t := l.toks[len(l.toks)-1]
	if t.kind != tWord && t.kind != tQuoted && !(t.kind == tString && t.dq) {
		return false
	}
	c := l.src[pos-1]
	return isIdentChar(c) || c == '`' || c == '"'
}

func (l *lexer) emit(k tokKind, text string, pos int) {
	t := token{kind: k, text: text, pos: pos}
	if k == tWord {
		t.up = strings.ToUpper(text)
	}
	l.toks = append(l.toks, t)
}

func (l *lexer) run() error {
	my, pg, lite := l.d == sqlast.MySQL, l.d == sqlast.Postgres, l.d == sqlast.SQLite
	for l.i < len(l.src) {
		c, pos := l.src[l.i], l.i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case c == '-' && l.peek(1) == '-':
			// MySQL needs a space or control character after "--" (or the
			// end): "1--1" is one minus minus one.
			if my {
				if n := l.peek(2); n != 0 && n > ' ' {
					l.emit(tPunct, "-", pos)
					l.i++
					continue
				}
			}
			if err := l.lineComment(); err != nil {
				return err
			}
		case c == '#' && my:
			if err := l.lineComment(); err != nil {
				return err
			}
		case c == '/' && l.peek(1) == '*':
			if my && (l.peek(2) == '!' || l.peek(2) == 'M' && l.peek(3) == '!') {
				// Executable comments run on some servers and versions and not
				// on others: the check cannot know which text the server reads.
				return l.errorf("MySQL executable comment /*! … */ is refused: write its contents as plain SQL")
			}
			if err := l.blockComment(pg); err != nil {
				return err
			}
			// MySQL 8 reads optimizer hints in /*+ … */, and SET_VAR sets a
			// variable for the statement behind SET's check.
			if my && strings.HasPrefix(l.src[pos:], "/*+") && strings.Contains(strings.ToUpper(l.src[pos:l.i]), "SET_VAR") {
				return l.errorf("the optimizer hint SET_VAR is refused: SET the variable in a statement of its own")
			}
		case c == '\'':
			if err := l.quoted('\'', tString, l.backslash && !lite); err != nil {
				return err
			}
		case c == '"':
			if my {
				if err := l.quoted('"', tString, l.dqBackslash); err != nil {
					return err
				}
				l.toks[len(l.toks)-1].dq = true
			} else if err := l.quoted('"', tQuoted, false); err != nil {
				return err
			}
		case c == '`' && (my || lite):
			if err := l.quoted('`', tQuoted, false); err != nil {
				return err
			}
		case c == '[' && lite:
			end := strings.IndexByte(l.src[l.i+1:], ']')
			if end < 0 {
				return l.errorf("unterminated [identifier]")
			}
			l.emit(tQuoted, l.src[l.i+1:l.i+1+end], pos)
			l.i += end + 2
		case c == '$' && pg:
			if err := l.dollar(); err != nil {
				return err
			}
		case my && c == '.' && l.nameBefore(pos) && isIdentChar(l.peek(1)):
			// MySQL reads what directly follows a name's dot as a name,
			// even one that starts with digits (test.1e5, test.2024_orders):
			// read as the number .1e5, it hid the qualifier and the case
			// wrote another database's table.
			l.emit(tPunct, ".", pos)
			l.i++
			start := l.i
			for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
				l.i++
			}
			l.emit(tWord, l.src[start:l.i], start)
		case isDigit(c) || c == '.' && isDigit(l.peek(1)):
			l.number()
		case isIdentStart(c):
			if err := l.word(); err != nil {
				return err
			}
		case c == '@' && my:
			if err := l.mysqlVar(); err != nil {
				return err
			}
		case (c == '@' || c == '$' || c == ':') && lite && isIdentChar(l.peek(1)):
			l.i++
			for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
				l.i++
			}
			l.emit(tVar, l.src[pos:l.i], pos)
		case c == '?':
			l.i++
			for lite && l.i < len(l.src) && isDigit(l.src[l.i]) {
				l.i++
			}
			l.emit(tVar, l.src[pos:l.i], pos)
		case c == ':' && (l.peek(1) == ':' || l.peek(1) == '='):
			l.emit(tPunct, l.src[l.i:l.i+2], pos)
			l.i += 2
		case strings.IndexByte("(),;.*+-/%<>=!~^&|:", c) >= 0 || pg && strings.IndexByte("#@?[]", c) >= 0:
			l.emit(tPunct, string(c), pos)
			l.i++
		default:
			return l.errorf("unexpected character %q", rune(c))
		}
	}
	return nil
}

// lineComment skips -- and # comments. PostgreSQL ends them at a carriage
// return as well as a line feed, MySQL and SQLite at a line feed only: a
// lone carriage return in one would let the server and the check see
// different code, so it is refused.
func (l *lexer) lineComment() error {
	for ; l.i < len(l.src) && l.src[l.i] != '\n'; l.i++ {
		if l.src[l.i] == '\r' && l.peek(1) != '\n' {
			return l.errorf("a carriage return without a line feed ends a comment on some servers only")
		}
	}
	return nil
}

// blockComment skips /* … */; PostgreSQL's nest.
// maxCommentDepth bounds PostgreSQL's nested comments, far past what a
// person writes.
const maxCommentDepth = 32

func (l *lexer) blockComment(nested bool) error {
	depth := 0
	for l.i < len(l.src) {
		switch {
		case l.src[l.i] == '/' && l.peek(1) == '*' && (nested || depth == 0):
			depth++
			l.i += 2
			if depth > maxCommentDepth {
				return l.errorf("comments nested more than %d deep are refused: PostgreSQL's parser takes minutes over deep ones and cannot be interrupted meanwhile, so the case's server process outlived txlab", maxCommentDepth)
			}
		case l.src[l.i] == '*' && l.peek(1) == '/':
			depth--
			l.i += 2
			if depth == 0 {
				return nil
			}
		default:
			l.i++
		}
	}
	return l.errorf("unterminated /* comment")
}

// quoted reads a literal or identifier in quote q, a doubled q standing for
// itself, and with backslash escapes when escapes is set.
func (l *lexer) quoted(q byte, k tokKind, escapes bool) error {
	pos := l.i
	var b strings.Builder
	for l.i++; l.i < len(l.src); l.i++ {
		c := l.src[l.i]
		switch {
		case c == '\\':
			l.sawBackslash = true
			if escapes {
				l.i++
				if l.i < len(l.src) {
					b.WriteByte(l.src[l.i])
				}
				continue
			}
			b.WriteByte(c)
		case c == q && l.peek(1) == q:
			b.WriteByte(q)
			l.i++
		case c == q:
			l.i++
			l.emit(k, b.String(), pos)
			return nil
		default:
			b.WriteByte(c)
		}
	}
	l.i = pos
	return l.errorf("unterminated %c", q)
}

// dollar reads PostgreSQL's $1 parameters and $tag$…$tag$ strings.
func (l *lexer) dollar() error {
	pos := l.i
	if isDigit(l.peek(1)) {
		l.i++
		for l.i < len(l.src) && isDigit(l.src[l.i]) {
			l.i++
		}
		l.emit(tVar, l.src[pos:l.i], pos)
		return nil
	}
	j := l.i + 1
	for j < len(l.src) && isIdentChar(l.src[j]) && l.src[j] != '$' {
		j++
	}
	if j >= len(l.src) || l.src[j] != '$' {
		return l.errorf("unexpected $")
	}
	tag := l.src[l.i : j+1]
	end := strings.Index(l.src[j+1:], tag)
	if end < 0 {
		return l.errorf("unterminated %s string", tag)
	}
	l.emit(tString, l.src[j+1:j+1+end], pos)
	l.i = j + 1 + end + len(tag)
	return nil
}

func (l *lexer) number() {
	pos := l.i
	digits := func(ok func(byte) bool) {
		for l.i < len(l.src) && (ok(l.src[l.i]) || l.src[l.i] == '_') {
			l.i++
		}
	}
	isHex := func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	if l.src[l.i] == '0' && (l.peek(1)|0x20 == 'x' || l.peek(1)|0x20 == 'b') {
		l.i += 2
		digits(isHex)
	} else {
		digits(isDigit)
		if l.peek(0) == '.' {
			l.i++
			digits(isDigit)
		}
		if l.peek(0)|0x20 == 'e' && (isDigit(l.peek(1)) || (l.peek(1) == '+' || l.peek(1) == '-') && isDigit(l.peek(2))) {
			l.i += 2
			digits(isDigit)
		}
	}
	// MySQL names may start with digits (1abc); a number run straight into
	// letters is read as one word, so that it can never hide a name.
	if l.i < len(l.src) && isIdentChar(l.src[l.i]) {
		for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
			l.i++
		}
		l.emit(tWord, l.src[pos:l.i], pos)
		return
	}
	l.emit(tNumber, l.src[pos:l.i], pos)
}

func (l *lexer) word() error {
	pos := l.i
	// String prefixes: E'…' (backslash escapes), B'…', X'…', N'…', U&'…'.
	if l.d == sqlast.Postgres {
		c := l.src[l.i] | 0x20
		if c == 'e' && l.peek(1) == '\'' {
			l.i++
			if err := l.quoted('\'', tString, true); err != nil {
				return err
			}
			l.toks[len(l.toks)-1].pos = pos // the token starts at its E
			return nil
		}
		if c == 'u' && l.peek(1) == '&' && (l.peek(2) == '"' || l.peek(2) == '\'') {
			// Unicode escapes can spell any name; txlab's cases have no use
			// for them.
			return l.errorf("U&\"…\" and U&'…' escapes are refused")
		}
	}
	for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
		l.i++
	}
	l.emit(tWord, l.src[pos:l.i], pos)
	return nil
}

// mysqlVar reads @name, @'name', @@name and @@scope.name as one token.
func (l *lexer) mysqlVar() error {
	pos := l.i
	l.i++
	if l.peek(0) == '@' {
		l.i++
		start := l.i
		for l.i < len(l.src) && (isIdentChar(l.src[l.i]) || l.src[l.i] == '.') {
			l.i++
		}
		if l.i == start {
			return l.errorf("@@ without a name")
		}
		l.emit(tVar, strings.ToLower(l.src[pos:l.i]), pos)
		return nil
	}
	switch c := l.peek(0); {
	case c == '\'' || c == '"' || c == '`':
		if err := l.quoted(c, tVar, c == '\'' && l.backslash || c == '"' && l.dqBackslash); err != nil {
			return err
		}
		l.toks[len(l.toks)-1].text = "@" + l.toks[len(l.toks)-1].text
		l.toks[len(l.toks)-1].pos = pos
	case isIdentChar(c) || c == '.':
		for l.i < len(l.src) && (isIdentChar(l.src[l.i]) || l.src[l.i] == '.') {
			l.i++
		}
		l.emit(tVar, l.src[pos:l.i], pos)
	default:
		return l.errorf("@ without a name")
	}
	return nil
}

package testcase

import (
	"fmt"
	"strings"
)

// asciiSpace is the white space the case format knows. Only ASCII counts:
// trimming Unicode spaces in one place but not in the lexer would let a
// statement made of a no-break space look non-empty to one and empty to the
// other.
const asciiSpace = " \t\r\n\v\f"

func isSpace(c byte) bool { return strings.IndexByte(asciiSpace, c) >= 0 }

func trim(s string) string { return strings.Trim(s, asciiSpace) }

// lexState is where the splitter is inside SQL text.
type lexState uint8

const (
	stTop          lexState = iota // plain SQL
	stSingle                       // '...' ('' and \' escapes)
	stDouble                       // "..." ("" and \" escapes)
	stBacktick                     // `...` (`` escape)
	stLineComment                  // -- ... end of line
	stBlockComment                 // /* ... */ (not nested, as in MySQL)
	stDollar                       // PostgreSQL $tag$ ... $tag$
)

func (s lexState) String() string {
	switch s {
	case stSingle:
		return "quoted string (')"
	case stDouble:
		return `quoted name or string (")`
	case stBacktick:
		return "quoted name (`)"
	case stLineComment:
		return "-- comment"
	case stBlockComment:
		return "/* comment"
	case stDollar:
		return "dollar-quoted string"
	}
	return "statement"
}

// piece is one statement cut out by the splitter.
type piece struct {
	sql     string // normalised text without the terminating ';'
	line    int    // line where the text starts
	content bool   // false when the text is only comments (an empty statement)
}

// splitter cuts SQL text into statements at semicolons outside quotes and
// comments. It keeps its state between calls to feed, so a statement, a
// quoted string or a block comment may span the lines the case parser feeds
// it one by one.
//
// The lexer is dialect-neutral, which forces two choices: backslash escapes a
// quote inside '...' and "..." (MySQL's default; a standard-SQL string ending
// in a backslash, 'C:\', is therefore not supported), and "--" always starts a
// comment (MySQL wants a space after it; nobody writes 1--1).
type splitter struct {
	state    lexState
	tag      string // the closing delimiter of a dollar quote, e.g. "$f$"
	escape   bool   // the previous byte was a backslash inside '...' or "..."
	openLine int    // line where the current quote or comment opened
	leading  bool   // the current -- comment precedes the statement's text and is dropped
	buf      strings.Builder
	content  bool // text outside comments seen
	start    int  // line where buf's text starts
	line     int  // current line; the caller sets it before feeding a line
	prev     byte // previous byte at top level, to tell $tag$ from an identifier containing '$'
}

// pending reports whether a statement has begun and not yet ended.
func (sp *splitter) pending() bool {
	return sp.buf.Len() > 0 || (sp.state != stTop && !(sp.state == stLineComment && sp.leading))
}

// inToken reports whether the splitter is inside a quote or block comment,
// where a line is data whatever it starts with.
func (sp *splitter) inToken() bool {
	return sp.state != stTop && sp.state != stLineComment
}

// feed scans s. When it meets a terminating ';' it returns the statement
// and the unscanned rest of s; otherwise it consumes all of s and ok is false.
func (sp *splitter) feed(s string) (p piece, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			sp.line++
		}
		switch sp.state {
		case stTop:
			if c == ';' {
				return sp.finish(), s[i+1:], true
			}
			if sp.buf.Len() == 0 && isSpace(c) {
				continue
			}
			if c == '-' && i+1 < len(s) && s[i+1] == '-' {
				sp.state, sp.openLine = stLineComment, sp.line
				// A comment before the statement's text is a comment line of
				// the case file, not part of the statement.
				sp.leading = sp.buf.Len() == 0
				if !sp.leading {
					sp.buf.WriteString("--")
				}
				i++
				continue
			}
			if sp.buf.Len() == 0 {
				sp.start = sp.line
			}
			switch c {
			case '\'':
				sp.open(stSingle)
			case '"':
				sp.open(stDouble)
			case '`':
				sp.open(stBacktick)
			case '/':
				if i+1 < len(s) && s[i+1] == '*' {
					sp.open(stBlockComment)
					sp.buf.WriteString("/*")
					i++
					// MySQL runs the text of /*! ... */ comments.
					if i+1 < len(s) && s[i+1] == '!' {
						sp.content = true
					}
					continue
				}
			case '$':
				if tag := dollarTag(s[i:]); tag != "" && !isIdentByte(sp.prev) {
					sp.open(stDollar)
					sp.tag = tag
					sp.content = true
					sp.buf.WriteString(tag)
					i += len(tag) - 1
					continue
				}
			}
			if !isSpace(c) {
				sp.content = true
			}
			sp.buf.WriteByte(c)
			sp.prev = c
		case stSingle, stDouble, stBacktick:
			sp.buf.WriteByte(c)
			switch {
			case sp.escape:
				sp.escape = false
			case c == '\\' && sp.state != stBacktick:
				sp.escape = true
			case c == '\'' && sp.state == stSingle, c == '"' && sp.state == stDouble, c == '`' && sp.state == stBacktick:
				// A doubled quote closes and reopens, which scans the same.
				sp.state, sp.prev = stTop, c
			}
		case stLineComment:
			if c == '\n' {
				sp.state, sp.prev = stTop, c
			}
			if !sp.leading {
				sp.buf.WriteByte(c)
			}
		case stBlockComment:
			sp.buf.WriteByte(c)
			if c == '*' && i+1 < len(s) && s[i+1] == '/' {
				sp.buf.WriteByte('/')
				i++
				sp.state, sp.prev = stTop, ' '
			}
		case stDollar:
			if c == '$' && strings.HasPrefix(s[i:], sp.tag) {
				sp.buf.WriteString(sp.tag)
				i += len(sp.tag) - 1
				sp.state, sp.prev = stTop, '$'
				continue
			}
			sp.buf.WriteByte(c)
		}
	}
	return piece{}, "", false
}

func (sp *splitter) open(st lexState) {
	sp.state, sp.openLine, sp.escape = st, sp.line, false
}

// finish ends the current statement and resets the splitter for the next.
func (sp *splitter) finish() piece {
	p := piece{sql: normSQL(sp.buf.String()), line: sp.start, content: sp.content}
	sp.buf.Reset()
	sp.state, sp.content, sp.prev, sp.leading = stTop, false, 0, false
	return p
}

// unterminated describes an open quote or comment at the end of the input, or "".
func (sp *splitter) unterminated() string {
	if !sp.inToken() {
		return ""
	}
	return fmt.Sprintf("%s opened on line %d is not closed", sp.state, sp.openLine)
}

// normSQL trims a statement's text. A statement whose last line is a --
// comment keeps one newline, or the ';' printed after it would be commented out.
func normSQL(s string) string {
	s = trim(s)
	var sp splitter
	sp.feed(s)
	if sp.state == stLineComment {
		s += "\n"
	}
	return s
}

// dollarTag returns the PostgreSQL dollar-quote delimiter s starts with
// ("$$" or "$name$"), or "".
func dollarTag(s string) string {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$':
			return s[:i+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		case c >= '0' && c <= '9' && i > 1:
		default:
			return ""
		}
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// SplitStatements splits SQL text into statements at semicolons outside
// quotes ('...', "...", `...`, $tag$...$tag$) and comments (-- and /* */).
// Statements are returned trimmed and without their semicolons; -- comment
// lines before a statement are dropped, and statements that are empty or
// only comments are skipped. A last statement without a semicolon is
// returned too. The error reports a quote or block comment left open.
func SplitStatements(sql string) ([]string, error) {
	s := Statements{sp: splitter{line: 1}}
	out := s.Feed(sql)
	if msg := s.sp.unterminated(); msg != "" {
		return out, fmt.Errorf("statement starting on line %d: %s", s.sp.start, msg)
	}
	if p := s.sp.finish(); p.content {
		out = append(out, p.sql)
	}
	return out, nil
}

// Statements splits text fed to it in pieces, as a shell reads lines:
// the splitter's state carries from one piece to the next, so each byte
// is read once however many lines a statement spans.
type Statements struct{ sp splitter }

// Feed scans text and returns the statements it completed (a ';' outside
// quotes and comments ends one; statements of comments alone are dropped).
func (s *Statements) Feed(text string) []string {
	var out []string
	for rest := text; ; {
		p, r, ok := s.sp.feed(rest)
		if !ok {
			return out
		}
		if p.content {
			out = append(out, p.sql)
		}
		rest = r
	}
}

// Pending reports whether a statement has begun and not ended: text
// without its ';', or a quote or block comment still open.
func (s *Statements) Pending() bool { return s.sp.pending() }

// Reset drops what was fed since the last statement ended.
func (s *Statements) Reset() { s.sp = splitter{} }

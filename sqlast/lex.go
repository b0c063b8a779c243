package sqlast

import (
	"fmt"
	"strings"
)

// tokKind classifies tokens.
type tokKind int

const (
	tokEOF    tokKind = iota
	tokWord           // unquoted identifier or keyword
	tokQIdent         // quoted identifier
	tokNumber
	tokString
	tokOp // punctuation and operators
	// tokVar is a MySQL user variable, @name (text without the @).
	tokVar
)

// token is one lexeme. text is the unquoted identifier, the unescaped string,
// the number as written, or the operator; pos is its byte offset.
type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokWord:
		return fmt.Sprintf("%q", t.text)
	case tokQIdent:
		return fmt.Sprintf("quoted identifier %q", t.text)
	case tokNumber:
		return "number " + t.text
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	case tokVar:
		return "@" + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

// ParseError is a syntax error with its position in the input.
type ParseError struct {
	Offset int // byte offset
	Line   int // 1-based
	Column int // 1-based, in bytes
	Msg    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("sqlast: line %d, column %d (offset %d): %s", e.Line, e.Column, e.Offset, e.Msg)
}

func newParseError(src string, off int, format string, args ...any) *ParseError {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	col := off + 1
	if i := strings.LastIndexByte(src[:off], '\n'); i >= 0 {
		col = off - i
	}
	return &ParseError{Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isWordByte(c byte) bool {
	return isWordStart(c) || c >= '0' && c <= '9' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lex splits src into tokens, skipping whitespace and comments. The rules
// follow dialect d where the dialects disagree: on the MySQL family "--"
// starts a comment only when followed by a space or control character, '#'
// starts a comment, backslash escapes work in strings and "..." is a string;
// elsewhere "..." is an identifier.
func lex(d Dialect, src string) ([]token, error) {
	var toks []token
	i := 0
	for {
		// Skip whitespace and comments.
		for i < len(src) {
			c := src[i]
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
				i++
				continue
			case c == '-' && i+1 < len(src) && src[i+1] == '-' &&
				(d != MySQL || i+2 >= len(src) || src[i+2] <= ' '):
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			case c == '#' && d == MySQL:
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			case c == '/' && i+1 < len(src) && src[i+1] == '*':
				if d == MySQL && i+2 < len(src) && (src[i+2] == '!' || src[i+2] == '+') {
					return nil, newParseError(src, i, "MySQL executable comments and optimizer hints are not supported")
				}
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil, newParseError(src, i, "unterminated /* comment")
				}
				// PostgreSQL nests block comments; the others do not. Reject
				// a nested opener rather than guess.
				if strings.Contains(src[i+2:i+2+end], "/*") {
					return nil, newParseError(src, i, "nested /* comments are not supported")
				}
				i += 2 + end + 2
				continue
			}
			break
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tokEOF, pos: i})
			return toks, nil
		}
		start := i
		c := src[i]
		switch {
		case isWordStart(c):
			for i < len(src) && isWordByte(src[i]) {
				i++
			}
			toks = append(toks, token{kind: tokWord, text: src[start:i], pos: start})
		case c == '@' && d == MySQL && i+1 < len(src) && isWordStart(src[i+1]):
			i++
			for i < len(src) && isWordByte(src[i]) {
				i++
			}
			toks = append(toks, token{kind: tokVar, text: src[start+1 : i], pos: start})
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			if i < len(src) && src[i] == '.' {
				i++
				for i < len(src) && isDigit(src[i]) {
					i++
				}
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				if j < len(src) && isDigit(src[j]) {
					for j < len(src) && isDigit(src[j]) {
						j++
					}
					i = j
				}
			}
			// MySQL reads 1abc as an identifier, the others as 1 AS abc:
			// refuse the ambiguity.
			if i < len(src) && (isWordByte(src[i]) || src[i] == '.') {
				return nil, newParseError(src, start, "malformed number %q", src[start:i+1])
			}
			toks = append(toks, token{kind: tokNumber, text: src[start:i], pos: start})
		case c == '\'' || c == '"' && d == MySQL:
			s, n, err := lexString(d, src, i)
			if err != nil {
				return nil, err
			}
			i = n
			toks = append(toks, token{kind: tokString, text: s, pos: start})
		case c == '"' || c == '`' && d != Postgres || c == '[' && d == SQLite:
			closer := c
			if c == '[' {
				closer = ']'
			}
			var b strings.Builder
			i++
			for {
				if i >= len(src) {
					return nil, newParseError(src, start, "unterminated quoted identifier")
				}
				if src[i] == closer {
					if closer != ']' && i+1 < len(src) && src[i+1] == closer {
						b.WriteByte(closer)
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(src[i])
				i++
			}
			if b.Len() == 0 {
				return nil, newParseError(src, start, "empty quoted identifier")
			}
			toks = append(toks, token{kind: tokQIdent, text: b.String(), pos: start})
		default:
			op := ""
			if d != MySQL && strings.HasPrefix(src[i:], "||") {
				// Concatenation; on the MySQL family || is OR by default
				// and stays outside the subset.
				op = "||"
			}
			if d == MySQL && strings.HasPrefix(src[i:], ":=") {
				op = ":="
			}
			for _, o := range []string{"<>", "<=", ">=", "!=", "(", ")", ",", ".", ";", "*", "+", "-", "/", "%", "=", "<", ">"} {
				if op != "" {
					break
				}
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, newParseError(src, i, "unexpected character %q", src[i:i+1])
			}
			if op == "!=" {
				op = "<>"
			}
			i += len(op)
			toks = append(toks, token{kind: tokOp, text: op, pos: start})
		}
	}
}

// lexString reads the string literal starting at src[i] (its opening quote)
// and returns the unescaped value and the offset after the closing quote.
func lexString(d Dialect, src string, i int) (string, int, error) {
	start := i
	q := src[i]
	i++
	var b strings.Builder
	for {
		if i >= len(src) {
			return "", 0, newParseError(src, start, "unterminated string literal")
		}
		c := src[i]
		switch {
		case c == q:
			if i+1 < len(src) && src[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		case c == '\\' && d == MySQL:
			if i+1 >= len(src) {
				return "", 0, newParseError(src, start, "unterminated string literal")
			}
			e := src[i+1]
			switch e {
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'Z':
				b.WriteByte(0x1a)
			case '%', '_':
				// MySQL keeps the backslash so LIKE patterns still see it.
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
}

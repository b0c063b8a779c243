package testcase

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/txlab/txlab/target"
)

// Error is a parse or validation error. It prints as "name:line: message",
// the form editors and terminals jump to.
type Error struct {
	Name string // case name (file name); may be empty
	Line int    // 1-based line; 0 when the case was not read from a file
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Name != "":
		return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.Name != "":
		return e.Name + ": " + e.Msg
	}
	return e.Msg
}

// bom is the byte order mark some editors write at the start of a file.
const bom = "\ufeff"

// headers are the known header keys (isolation.N aside); knownHeaders lists
// them in the warning for an unknown key.
var headers = []string{"isolation", "dbms", "mode", "seed", "expect", "reduced-from", "finding", "replay", "bug", "link", "affects", "fixed", "levels", "oracle", "rule", "symptom", "status"}

const knownHeaders = "isolation, isolation.N, dbms, mode, seed, expect, reduced-from, finding, replay, and for known bugs bug, link, affects, fixed, levels, oracle, rule, symptom, status"

var (
	// headerRE matches the text of a "-- key: value" line after the "--".
	// A key is one word; "-- see http://..." has no header shape.
	headerRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]*):([^/].*|)$`)
	// stepRE matches the "N>" prefix of a step line.
	stepRE = regexp.MustCompile(`^[ \t\r\v\f]*([0-9]+)>`)
)

// ParseFile reads and parses the case file at path; errors name the path.
func ParseFile(path string) (*Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// ParseString parses a case held in a string.
func ParseString(name, s string) (*Case, error) {
	return parse(name, s)
}

// Parse reads a case file. Errors are *Error values naming the line. Parse
// checks the syntax only; call Validate for the rules that concern the case
// as a whole (it has steps, isolation.N names a used connection, ...).
func Parse(name string, r io.Reader) (*Case, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most a case file may hold", name, MaxBytes)
	}
	return parse(name, string(b))
}

// CheckUTF8 refuses text that is not valid UTF-8, naming the line and the
// byte offset (in the file, from 0) of the first byte that is not. txlab
// talks to every server in UTF-8 and checks a case's statements as UTF-8:
// bytes of another encoding (SJIS, GBK, BIG5) are where a server reading
// that encoding sees a quote end that the check sees escaped. Every way
// case text comes in (case files, import, the shell's \save) goes through
// here or through Parse.
func CheckUTF8(name, text string) error {
	if utf8.ValidString(text) {
		return nil
	}
	line, start := 1, 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			return &Error{Name: name, Line: line, Msg: fmt.Sprintf(
				"byte %d (column %d) is not valid UTF-8 (0x%02x): txlab reads case files as UTF-8 only; convert the file (iconv -t UTF-8)",
				i, i-start+1, text[i])}
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += n
	}
	return nil
}

// Limits on a case: running and judging a case costs time and memory that
// grow faster than the case (the model's view of a statement spans every
// version so far), and a case past them is no bug report anyone reads.
const (
	MaxBytes      = 1 << 20
	MaxStatements = 10000
)

// parser holds the state of one parse.
type parser struct {
	name    string
	c       *Case
	started bool // the first statement has begun: no more headers
	steps   bool // the first step has been seen: no more setup
	hdrLine map[string]int
	sp      splitter
	// The step being read, while stepOpen.
	stepOpen bool
	stepConn int
	stepLine int
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &Error{Name: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func parse(name, text string) (*Case, error) {
	if err := CheckUTF8(name, text); err != nil {
		return nil, err
	}
	p := &parser{name: name, c: &Case{Name: name}, hdrLine: map[string]int{}}
	text = strings.TrimPrefix(text, bom)
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		// CRLF files read like LF files; a carriage return at the end of a
		// line inside a multi-line string is lost with them.
		line = strings.TrimRight(line, "\r")
		if err := p.line(i+1, line); err != nil {
			return nil, err
		}
		if n := len(p.c.Setup) + len(p.c.Steps); n > MaxStatements {
			return nil, p.errorf(i+1, "more than %d statements, the most a case may hold", MaxStatements)
		}
	}
	if p.stepOpen {
		return nil, p.errorf(p.stepLine, "step is not terminated by ';'%s", p.openNote())
	}
	if p.sp.pending() {
		return nil, p.errorf(p.sp.start, "setup statement is not terminated by ';'%s", p.openNote())
	}
	return p.c, nil
}

// openNote explains an unterminated statement that ends inside a quote.
func (p *parser) openNote() string {
	if msg := p.sp.unterminated(); msg != "" {
		return " (" + msg + ")"
	}
	return ""
}

func (p *parser) line(ln int, line string) error {
	p.sp.line = ln
	if p.stepOpen || p.sp.pending() {
		// A continuation line, unless it starts the next step: then the
		// statement before it lacks its ';'.
		if !p.sp.inToken() && stepRE.MatchString(line) {
			if p.stepOpen {
				return p.errorf(p.stepLine, "step is not terminated by ';' before the step on line %d", ln)
			}
			return p.errorf(p.sp.start, "setup statement is not terminated by ';' before the step on line %d", ln)
		}
		if p.stepOpen {
			return p.stepText(ln, line+"\n")
		}
		return p.setupText(ln, line+"\n")
	}
	t := trim(line)
	switch {
	case t == "":
		return nil
	case strings.HasPrefix(t, "--"):
		return p.comment(ln, t)
	}
	p.started = true
	if m := stepRE.FindStringSubmatch(line); m != nil {
		conn, err := strconv.Atoi(m[1])
		if err != nil || conn < 1 {
			return p.errorf(ln, "bad connection number %q: connections are numbered from 1", m[1])
		}
		p.steps, p.stepOpen, p.stepConn, p.stepLine = true, true, conn, ln
		return p.stepText(ln, line[len(m[0]):]+"\n")
	}
	if p.steps {
		return p.errorf(ln, "expected a step \"N> statement;\": setup statements go before the first step")
	}
	return p.setupText(ln, line+"\n")
}

// stepText feeds text of the open step to the splitter.
func (p *parser) stepText(ln int, text string) error {
	s, rest, ok := p.sp.feed(text)
	if !ok {
		return nil
	}
	p.stepOpen = false
	if !s.content {
		return p.errorf(p.stepLine, "empty statement")
	}
	if r := trim(rest); r != "" && !strings.HasPrefix(r, "--") {
		return p.errorf(ln, "a step holds exactly one statement; found %q after its ';'", r)
	}
	p.c.Steps = append(p.c.Steps, Step{Conn: p.stepConn, SQL: s.sql, Line: p.stepLine, Kind: Classify(s.sql)})
	return nil
}

// setupText feeds setup text to the splitter; one line may hold several
// statements.
func (p *parser) setupText(ln int, text string) error {
	for {
		s, rest, ok := p.sp.feed(text)
		if !ok {
			return nil
		}
		if strings.HasPrefix(s.sql, bom) {
			// Printed first in a file it would read as the file's BOM.
			return p.errorf(s.line, "setup statement starts with a byte order mark (U+FEFF)")
		}
		if s.content {
			p.c.Setup = append(p.c.Setup, s.sql)
		}
		if stepRE.MatchString(rest) {
			return p.errorf(ln, "a step \"N> ...\" must start its own line")
		}
		text = rest
	}
}

// comment handles a "--" line outside statements: a header, or a comment
// kept when it precedes the first statement.
func (p *parser) comment(ln int, t string) error {
	body := strings.TrimPrefix(t, "--")
	if m := headerRE.FindStringSubmatch(trim(body)); m != nil {
		key := strings.ToLower(m[1])
		known := isKnownHeader(key)
		switch {
		case p.started && known:
			return p.errorf(ln, "header %q must come before the first statement", m[1])
		case p.started:
			return nil // a comment among the statements
		case !known:
			// Forgiven: a typo should not stop a batch. The line stays a
			// comment, so the case prints back as it was written.
			hint := ""
			if near := nearest(key, headers); near != "" {
				hint = fmt.Sprintf("did you mean %q? ", near)
			}
			p.c.Warnings = append(p.c.Warnings, &Error{Name: p.name, Line: ln,
				Msg: fmt.Sprintf("unknown header %q ignored (%sknown: %s)", m[1], hint, knownHeaders)})
		default:
			return p.header(ln, key, trim(m[2]))
		}
	}
	if p.started {
		return nil
	}
	// Drop one space after "--": the printer writes "-- text".
	p.c.Comments = append(p.c.Comments, strings.TrimRight(strings.TrimPrefix(body, " "), asciiSpace))
	return nil
}

func isKnownHeader(key string) bool {
	return slices.Contains(headers, key) || strings.HasPrefix(key, "isolation.")
}

func (p *parser) header(ln int, key, val string) error {
	if val == "" {
		return p.errorf(ln, "header %s has no value", key)
	}
	conn := 0
	if k, n, ok := strings.Cut(key, "."); ok {
		var err error
		conn, err = strconv.Atoi(n)
		if err != nil || conn < 1 || n[0] < '0' || n[0] > '9' {
			return p.errorf(ln, "bad header %s: want isolation.N with a connection number N ≥ 1", key)
		}
		key = k + "." + strconv.Itoa(conn)
	}
	if first, dup := p.hdrLine[key]; dup {
		return p.errorf(ln, "duplicate header %s (first on line %d)", key, first)
	}
	p.hdrLine[key] = ln
	c := p.c
	switch key {
	case "isolation":
		l, err := target.ParseLevel(val)
		if err != nil {
			return p.errorf(ln, "%v", err)
		}
		c.Isolation = l
	case "dbms":
		c.DBMS = val
	case "mode":
		m := strings.ToLower(val)
		if m != "pessimistic" && m != "optimistic" {
			return p.errorf(ln, "unknown mode %q (want pessimistic or optimistic)", val)
		}
		c.Mode = m
	case "seed":
		c.Seed = val
	case "expect":
		c.Expect = val
	case "reduced-from":
		c.ReducedFrom = val
	case "finding":
		c.Finding = val
	case "replay":
		c.Replay = val
	case "bug", "link", "affects", "fixed", "levels", "oracle", "rule", "symptom", "status":
		*c.Known.field(key) = val
	default: // isolation.N
		l, err := target.ParseLevel(val)
		if err != nil {
			return p.errorf(ln, "%v", err)
		}
		if c.ConnIsolation == nil {
			c.ConnIsolation = map[int]target.Level{}
		}
		c.ConnIsolation[conn] = l
	}
	return nil
}

// nearest returns the candidate closest to s, a likely typo of it: within
// one edit (a swap of neighbours counts as one) for a word of up to four
// letters, two for a longer one; "" when none is that close.
func nearest(s string, candidates []string) string {
	limit := 1
	if len(s) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance of two short
// strings: insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

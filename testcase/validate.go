package testcase

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/txlab/txlab/target"
)

// Validate checks the rules a case must meet to be run and to be printed
// and read back unchanged: it has steps, connection numbers are ≥ 1, every
// statement is exactly one non-empty statement in the form the parser
// produces, levels and mode are known names, headers and comments fit on
// their line. It returns all problems joined; each names the step's line
// when the case was read from a file.
func (c *Case) Validate() error {
	var errs []error
	add := func(line int, format string, args ...any) {
		errs = append(errs, &Error{Name: c.Name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}

	if c.Isolation != "" && !slices.Contains(target.AllLevels, c.Isolation) {
		add(0, "unknown isolation level %q", c.Isolation)
	}
	used := map[int]bool{}
	for _, s := range c.Steps {
		used[s.Conn] = true
	}
	for _, conn := range slices.Sorted(maps.Keys(c.ConnIsolation)) {
		l := c.ConnIsolation[conn]
		switch {
		case conn < 1:
			add(0, "isolation.%d: connections are numbered from 1", conn)
		case !slices.Contains(target.AllLevels, l):
			add(0, "isolation.%d: unknown isolation level %q", conn, l)
		case !used[conn]:
			add(0, "isolation.%d: connection %d runs no step", conn, conn)
		}
	}
	if c.Mode != "" && c.Mode != "pessimistic" && c.Mode != "optimistic" {
		add(0, "unknown mode %q (want pessimistic or optimistic)", c.Mode)
	}
	for _, h := range []struct{ key, val string }{{"dbms", c.DBMS}, {"seed", c.Seed}, {"expect", c.Expect}, {"reduced-from", c.ReducedFrom}, {"finding", c.Finding}, {"replay", c.Replay}} {
		if h.val != trim(h.val) || strings.Contains(h.val, "\n") {
			add(0, "header %s: %q must be one line without surrounding white space", h.key, h.val)
		}
	}
	for i, com := range c.Comments {
		switch {
		case strings.Contains(com, "\n"):
			add(0, "comment %d holds a line break", i+1)
		case com != strings.TrimRight(com, asciiSpace):
			add(0, "comment %d ends with white space", i+1)
		case isHeaderLine(com):
			add(0, "comment %d (%q) would read as a header", i+1, com)
		}
	}
	for i, s := range c.Setup {
		if msg := checkSQL(s, true); msg != "" {
			add(0, "setup statement %d: %s", i+1, msg)
		}
	}
	if len(c.Steps) == 0 {
		add(0, "the case has no steps")
	}
	for i, s := range c.Steps {
		where := ""
		if s.Line == 0 {
			where = fmt.Sprintf("step %d: ", i+1)
		}
		if s.Conn < 1 {
			add(s.Line, "%sconnection number %d: connections are numbered from 1", where, s.Conn)
		}
		if msg := checkSQL(s.SQL, false); msg != "" {
			add(s.Line, "%s%s", where, msg)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// The checks above should make printing lossless; make sure, so that a
	// gap in them shows up here rather than as a different case on replay.
	back, err := ParseString(c.Name, c.String())
	if err != nil {
		return &Error{Name: c.Name, Msg: fmt.Sprintf("the printed case does not parse: %v", err)}
	}
	if !c.Equal(back) {
		return &Error{Name: c.Name, Msg: "the printed case reads back differently"}
	}
	return nil
}

// checkSQL checks that sql is one statement in the form the parser
// produces, so that printing it followed by ';' reads back the same. It
// returns a message or "".
func checkSQL(sql string, setup bool) string {
	if trim(sql) == "" {
		return "empty statement"
	}
	lines := strings.Split(sql, "\n")
	sp := splitter{line: 1}
	for k, line := range lines {
		sp.line = k + 1
		if k > 0 && !sp.inToken() && stepRE.MatchString(line) {
			return fmt.Sprintf("line %d of the statement starts like a step (N>)", k+1)
		}
		if k < len(lines)-1 && strings.HasSuffix(line, "\r") {
			return fmt.Sprintf("line %d of the statement ends with a carriage return; the parser drops it", k+1)
		}
		if k < len(lines)-1 {
			line += "\n"
		}
		if _, _, ok := sp.feed(line); ok {
			return "more than one statement (';' outside quotes and comments)"
		}
	}
	if msg := sp.unterminated(); msg != "" {
		return msg
	}
	if sp.state == stLineComment {
		return "the statement ends in a -- comment without a line break: its ';' would be commented out"
	}
	p := sp.finish()
	switch {
	case !p.content:
		return "empty statement (only comments)"
	case p.sql != sql:
		return "surrounding white space or -- comment lines; the parser would drop them"
	case setup && stepRE.MatchString(sql):
		return "a setup statement must not start like a step (N>)"
	case setup && strings.HasPrefix(sql, bom):
		return "a setup statement must not start with a byte order mark (U+FEFF)"
	}
	return ""
}

// isHeaderLine reports whether a comment's text would parse as a known
// header (an unknown key parses back as a comment, with a warning).
func isHeaderLine(com string) bool {
	m := headerRE.FindStringSubmatch(trim(com))
	return m != nil && isKnownHeader(strings.ToLower(m[1]))
}

package convert

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// ReplBug publishes each bug as a Python module (src/testcase/bug_list in
// its repository): constants BUG_ID, LINK, DB_AND_VERSION, DESCRIPTION,
// ORIGINAL_ISOLATION_LEVEL and SETUP_SQL_SCRIPT, and get_scenarios, which
// returns (f-)strings of "conn_N> statement;" lines, the first usually
// setting the isolation level from its argument. parseReplBug reads those
// literals; a scenario that Python code assembles is refused.

var (
	pyConst = regexp.MustCompile(`(?m)^([A-Z_]+)\s*=\s*(.*)$`)
	// pyTriple matches a (f-)string literal in triple quotes.
	pyTriple  = regexp.MustCompile(`(?s)(f?)"""(.*?)"""`)
	pyString  = regexp.MustCompile(`^f?"((?:[^"\\]|\\.)*)"`)
	connLine  = regexp.MustCompile(`^conn_([0-9]+)>\s*(.*)$`)
	dbType    = regexp.MustCompile(`DatabaseType\.([A-Z]+)\s*,\s*"([^"]*)"`)
	levelName = regexp.MustCompile(`IsolationLevel\.([A-Z_]+)`)
	// isolationSet is a scenario's statement that sets the level it is
	// replayed at: the case's isolation header does that.
	// trailingComment is a "-- note" after a statement's semicolon.
	trailingComment = regexp.MustCompile(`;\s*--.*$`)
	isolationSet    = regexp.MustCompile(`(?i)^SET\s+(GLOBAL\s+|SESSION\s+|LOCAL\s+)?TRANSACTION\s+ISOLATION\s+LEVEL\s+\{isolation_level\.value\}\s*;?$`)
)

func parseReplBug(ctx context.Context, name, src string, max int) ([]*testcase.Case, error) {
	// lineOf counts from the offset it was last asked for when it can: the
	// scenarios are asked for in order, and counting from the start each
	// time made a module of many scenarios take quadratic time.
	lastOff, lastLine := 0, 1
	lineOf := func(offset int) int {
		if offset < lastOff {
			lastOff, lastLine = 0, 1
		}
		lastLine += strings.Count(src[lastOff:offset], "\n")
		lastOff = offset
		return lastLine
	}
	fail := func(n int, format string, args ...any) error {
		return &testcase.Error{Name: name, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	consts := map[string]string{}
	constAt := map[string]int{}
	for _, m := range pyConst.FindAllStringSubmatchIndex(src, -1) {
		key, val := src[m[2]:m[3]], src[m[4]:m[5]]
		consts[key], constAt[key] = val, m[4]
	}
	literal := func(key string) (string, error) {
		at, ok := constAt[key]
		if !ok {
			return "", nil
		}
		rest := src[at:]
		if m := pyTriple.FindStringSubmatchIndex(rest); m != nil && m[0] == 0 {
			return rest[m[4]:m[5]], nil
		}
		// One string, or adjacent strings in parentheses.
		paren := strings.HasPrefix(rest, "(")
		if paren {
			rest = rest[1:]
		}
		var parts []string
		for {
			rest = strings.TrimLeft(rest, " \t\r\n")
			m := pyString.FindStringSubmatch(rest)
			if m == nil {
				break
			}
			s, err := strconv.Unquote(`"` + m[1] + `"`)
			if err != nil {
				return "", fail(lineOf(at), "%s: %v", key, err)
			}
			parts = append(parts, s)
			rest = rest[len(m[0]):]
			if !paren {
				break
			}
		}
		if len(parts) == 0 || paren && !strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), ")") {
			return "", fail(lineOf(at), "%s is not a string literal", key)
		}
		return strings.Join(parts, ""), nil
	}
	setupSrc, err := literal("SETUP_SQL_SCRIPT")
	if err != nil {
		return nil, err
	}
	bugID, err := literal("BUG_ID")
	if err != nil {
		return nil, err
	}
	link, err := literal("LINK")
	if err != nil {
		return nil, err
	}
	desc, err := literal("DESCRIPTION")
	if err != nil {
		return nil, err
	}

	level := target.RepeatableRead // ReplBug's DEFAULT_ISOLATION_LEVEL
	if m := levelName.FindStringSubmatch(consts["ORIGINAL_ISOLATION_LEVEL"]); m != nil {
		l, err := target.ParseLevel(strings.ReplaceAll(m[1], "_", " "))
		if err != nil {
			return nil, fail(lineOf(constAt["ORIGINAL_ISOLATION_LEVEL"]), "ORIGINAL_ISOLATION_LEVEL: %v", err)
		}
		level = l
	}
	dbms, version := "", ""
	if at, ok := constAt["DB_AND_VERSION"]; ok {
		if m := dbType.FindStringSubmatch(src[at:min(len(src), at+200)]); m != nil {
			dbms, version = strings.ToLower(m[1]), m[2]
		}
	}

	setup, err := testcase.SplitStatements(setupSrc)
	if err != nil {
		return nil, fail(lineOf(constAt["SETUP_SQL_SCRIPT"]), "SETUP_SQL_SCRIPT: %v", err)
	}
	var kept []string
	for _, s := range setup {
		if f := strings.Fields(strings.ToUpper(s)); len(f) >= 2 && f[0] == "DROP" && f[1] == "TABLE" {
			continue // txlab starts every case on an empty database
		}
		kept = append(kept, s)
	}

	fn := strings.Index(src, "def get_scenarios")
	if fn < 0 {
		return nil, fail(0, "no get_scenarios: not a ReplBug bug module")
	}
	var out []*testcase.Case
	count := 0
	for _, m := range pyTriple.FindAllStringSubmatchIndex(src[fn:], -1) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, body := src[fn+m[2]:fn+m[3]], src[fn+m[4]:fn+m[5]]
		start := lineOf(fn + m[4])
		if !strings.Contains(body, "conn_") {
			continue // a docstring, or a piece code assembles
		}
		c := &testcase.Case{Name: name, Isolation: level, DBMS: dbms, Setup: kept}
		c.Known = testcase.Known{Bug: bugID, Link: link, Symptom: strings.Join(strings.Fields(desc), " ")}
		if dbms != "" {
			c.Known.Affects = fmt.Sprintf("%s %s (where it was reported)", dbms, version)
		}
		c.Comments = append(c.Comments, fmt.Sprintf("Converted by txlab import --from replbug from %s (scenario at line %d); ReplBug replays it at every isolation level: txlab run --isolation L", name, start))
		lines := strings.Split(body, "\n")
		var parts [][]string // each step's lines
		for i, raw := range lines {
			text := strings.TrimSpace(raw)
			if text == "" {
				continue
			}
			n := start + i
			if f == "f" {
				if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(text, "{{", ""), "}}", ""), "{") && !isolationSet.MatchString(strings.TrimSpace(text[strings.Index(text, ">")+1:])) {
					return nil, fail(n, "a placeholder other than {isolation_level.value}: the scenario is assembled by code")
				}
				text = strings.ReplaceAll(strings.ReplaceAll(text, "{{", "{"), "}}", "}")
			}
			cm := connLine.FindStringSubmatch(text)
			if cm == nil {
				if len(c.Steps) == 0 {
					return nil, fail(n, "%q: want conn_N> statement", text)
				}
				// A statement continued on the next line (joined once
				// it is whole: appending each line copied the statement
				// so far, quadratic in its lines).
				parts[len(parts)-1] = append(parts[len(parts)-1], text)
				continue
			}
			conn, _ := strconv.Atoi(cm[1])
			stmt := strings.TrimSpace(trailingComment.ReplaceAllString(cm[2], ";"))
			if isolationSet.MatchString(stmt) {
				continue
			}
			c.Steps = append(c.Steps, testcase.Step{Conn: conn + 1, Line: n})
			parts = append(parts, []string{stmt})
		}
		for i := range c.Steps {
			c.Steps[i].SQL = statement(strings.Join(parts[i], "\n"))
		}
		if len(c.Steps) == 0 {
			continue
		}
		// Past max, the scenarios are only counted, for the refusal (a
		// module of 900,000 took 1 GB to be refused once all were made).
		if count++; max > 0 && count > max {
			continue
		}
		if err := c.Validate(); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if max > 0 && count > max {
		return nil, &TooManyCasesError{Count: int64(count), Max: max}
	}
	if len(out) == 0 {
		return nil, fail(lineOf(fn), "get_scenarios returns no scenario of conn_N> lines written out (it is assembled by code)")
	}
	return out, nil
}

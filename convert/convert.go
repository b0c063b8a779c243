// Package convert turns the case formats other isolation-testing tools
// publish into txlab cases, keeping the source text as comments so a
// converted case says where it came from.
//
// Troc, WriteCheck and DT2 share one plain-text shape: the setup
// statements, a blank line, one block per transaction (a header line, then
// its statements), the schedule as transaction numbers joined by "-"
// (1-1-2-2-1-2: the n-th number is the transaction whose next statement
// is submitted n-th), and a line "END"; free text (the tool's verdict)
// may follow. The header of a block is its isolation level (Troc: RC, RR,
// SER, …) or the transaction's number (WriteCheck). Statements may end in
// a semicolon or not. ReplBug's Python bug modules are read too (see
// parseReplBug), and the vendors' own concurrency tests: PostgreSQL's
// isolation-tester specs (package pgspec) and MariaDB's and MySQL's
// mysql-test files (package mysqltest).
package convert

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/txlab/txlab/convert/mysqltest"
	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Formats names the formats Parse reads.
var Formats = []string{"troc", "writecheck", "dt2", "replbug", "pg-isolation", "mysql-test"}

// Parse reads the cases in the given format (see Formats) from r; name is
// the file name errors and the source comments cite. A file may hold
// several cases, each ending with its END line; text after the last END
// (the tool's verdict) is kept as a comment of the last case.
func Parse(format, name string, r io.Reader) ([]*testcase.Case, error) {
	return parse(context.Background(), format, name, r, 0)
}

// parse is Parse, checking ctx between the cases of a troc, writecheck,
// dt2 or ReplBug file (the other formats' files are bounded at 1 MiB),
// and refusing a ReplBug module of more than max scenarios (0: any
// number) without making the rest (File counts the others' cases
// before).
func parse(ctx context.Context, format, name string, r io.Reader, max int) ([]*testcase.Case, error) {
	switch format {
	case "troc", "writecheck", "dt2":
	case "replbug":
		src, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return parseReplBug(ctx, name, string(src), max)
	case "pg-isolation":
		return pgspec.Parse(name, r)
	case "mysql-test":
		return mysqltest.Parse(name, r)
	default:
		return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []*testcase.Case
	start := 0
	for i, l := range lines {
		if !strings.EqualFold(strings.TrimSpace(l), "END") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := parseBlocks(format, name, lines[start:i+1], start)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		start = i + 1
	}
	trailer := lines[start:]
	if strings.TrimSpace(strings.Join(trailer, "")) != "" {
		if len(out) == 0 {
			return nil, &testcase.Error{Name: name, Line: len(lines), Msg: "no END line: a case ends with its schedule (e.g. 1-1-2-2-1-2) and END"}
		}
		last := out[len(out)-1]
		last.Comments = append(last.Comments, "After END:")
		for _, l := range trailer {
			if strings.TrimSpace(l) != "" {
				last.Comments = append(last.Comments, sourceComment(l))
			}
		}
	}
	if len(out) == 0 {
		return nil, &testcase.Error{Name: name, Msg: "empty file: want setup statements, transaction blocks, a schedule and END"}
	}
	if len(out) > 1 {
		for i, c := range out {
			c.Name = fmt.Sprintf("%s#%d", name, i+1)
		}
	}
	return out, nil
}

// countEnds counts the END lines of a troc, writecheck or dt2 file: the
// cases parse makes of it, counted without making them (a 60 MiB file of
// a million cases took 1.7 GB and 35 s to be refused once they were
// made).
func countEnds(src []byte) int {
	n := 0
	for len(src) > 0 {
		l := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if bytes.EqualFold(bytes.TrimSpace(l), []byte("END")) {
			n++
		}
	}
	return n
}

// line is one non-blank source line.
type line struct {
	n    int
	text string
}

// block is one transaction of the source.
type block struct {
	header line
	level  target.Level // "" when the header is a number
	id     int          // the number in the schedule
	stmts  []line
}

// parseBlocks parses one case: all its lines, the first being line
// offset+1 of the file, the last its END.
func parseBlocks(format, name string, all []string, offset int) (*testcase.Case, error) {
	fail := func(n int, format string, args ...any) error {
		return &testcase.Error{Name: name, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	// Paragraphs: runs of non-blank lines.
	var paras [][]line
	blank := true
	for i, l := range all {
		text := strings.TrimSpace(l)
		if text == "" {
			blank = true
			continue
		}
		if blank {
			paras = append(paras, nil)
			blank = false
		}
		paras[len(paras)-1] = append(paras[len(paras)-1], line{offset + i + 1, text})
	}
	for len(all) > 0 && strings.TrimSpace(all[0]) == "" {
		all = all[1:]
	}
	if len(paras) == 0 {
		return nil, fail(offset+1, "want setup statements, transaction blocks, a schedule and END")
	}
	// The chunk ends with END: the schedule is the paragraph that holds
	// END after it, or the one before END's own paragraph.
	sched := len(paras) - 1
	if len(paras[sched]) == 1 {
		sched-- // END alone
	}
	if sched < 0 || !isSchedule(paras[sched][0].text) {
		n := offset + len(all)
		if sched >= 0 {
			n = paras[sched][0].n
		}
		return nil, fail(n, "no schedule line (transaction numbers joined by \"-\", e.g. 1-1-2-2-1-2) before END")
	}
	schedLine := paras[sched][0]
	if p := paras[sched]; len(p) > 2 || len(p) == 2 && !strings.EqualFold(p[1].text, "END") {
		return nil, fail(p[1].n, "%q after the schedule: want END", p[1].text)
	}
	body := paras[:sched]
	if len(body) == 0 {
		return nil, fail(schedLine.n, "no transaction block before the schedule")
	}
	// The setup is the first paragraph unless it already looks like a
	// transaction block (a case with no setup).
	var setup []line
	if _, _, ok := blockHeader(body[0][0].text); !ok {
		setup, body = body[0], body[1:]
	}
	var blocks []*block
	for _, p := range body {
		lvl, id, ok := blockHeader(p[0].text)
		stmts := p[1:]
		if !ok && testcase.ControlOf(statement(p[0].text)) == testcase.Begin {
			// DT2's published cases have no header: the block is its
			// statements from BEGIN on, numbered by its order.
			ok, stmts = true, p
		}
		if !ok {
			return nil, fail(p[0].n, "%q starts a transaction block but is neither an isolation level (RU, RC, RR, SI, SER), a transaction number nor BEGIN", p[0].text)
		}
		b := &block{header: p[0], level: lvl, id: id, stmts: stmts}
		if b.id == 0 {
			b.id = len(blocks) + 1
		}
		for _, o := range blocks {
			if o.id == b.id {
				return nil, fail(p[0].n, "transaction %d has two blocks (the other at line %d)", b.id, o.header.n)
			}
		}
		if len(b.stmts) == 0 {
			return nil, fail(p[0].n, "transaction %d has no statements", b.id)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return nil, fail(schedLine.n, "no transaction block before the schedule")
	}

	c := &testcase.Case{Name: name}
	c.Comments = append(c.Comments, fmt.Sprintf("Converted by txlab import --from %s from %s (line %d on); the source:", format, name, paras[0][0].n))
	for _, s := range all {
		c.Comments = append(c.Comments, sourceComment(s))
	}
	for _, l := range setup {
		c.Setup = append(c.Setup, statement(l.text))
	}
	// Connections are numbered by block order; a level header sets the
	// connection's level.
	index := map[int]int{} // transaction number → its block's index
	levels := map[int]target.Level{}
	for i, b := range blocks {
		index[b.id] = i
		if b.level != "" {
			levels[i+1] = b.level
		}
	}
	next := map[int]int{}
	for _, field := range strings.Split(schedLine.text, "-") {
		id, _ := strconv.Atoi(strings.TrimSpace(field))
		i, ok := index[id]
		if !ok {
			return nil, fail(schedLine.n, "the schedule names transaction %d, which has no block", id)
		}
		b := blocks[i]
		if next[id] >= len(b.stmts) {
			return nil, fail(schedLine.n, "the schedule submits %d statements of transaction %d, which has %d", next[id]+1, id, len(b.stmts))
		}
		s := b.stmts[next[id]]
		next[id]++
		c.Steps = append(c.Steps, testcase.Step{Conn: i + 1, SQL: statement(s.text), Line: s.n})
	}
	for _, b := range blocks {
		if next[b.id] != len(b.stmts) {
			return nil, fail(schedLine.n, "the schedule submits %d of transaction %d's %d statements", next[b.id], b.id, len(b.stmts))
		}
	}
	setLevels(c, levels, len(blocks))
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// setLevels writes the blocks' levels as the isolation header when every
// connection has the same one, as isolation.N headers otherwise.
func setLevels(c *testcase.Case, levels map[int]target.Level, conns int) {
	if len(levels) == 0 {
		return
	}
	same := len(levels) == conns
	for _, l := range levels {
		same = same && l == levels[1]
	}
	if same {
		c.Isolation = levels[1]
		return
	}
	c.ConnIsolation = levels
}

// isSchedule reports whether s is transaction numbers joined by "-".
func isSchedule(s string) bool {
	for _, f := range strings.Split(s, "-") {
		if _, err := strconv.Atoi(strings.TrimSpace(f)); err != nil {
			return false
		}
	}
	return true
}

// blockHeader reads a transaction block's first line: an isolation level
// or a transaction number.
func blockHeader(s string) (target.Level, int, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), ":")
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return "", n, true
	}
	if l, err := target.ParseLevel(s); err == nil {
		return l, 0, true
	}
	return "", 0, false
}

// statement drops a statement's terminating semicolon.
func statement(s string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
}

// sourceComment is a source line as a comment line: indented, without
// trailing white space ("|" stands for a blank line).
func sourceComment(s string) string {
	s = strings.TrimRight(s, " \t\r")
	if s == "" {
		return "  |"
	}
	return "  | " + s
}

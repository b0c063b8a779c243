// Package pgspec reads and writes PostgreSQL's isolation-tester specs
// (src/test/isolation/specs/*.spec), the format PostgreSQL's own
// concurrency tests are written in, so that txlab can judge them and a
// finding can go upstream as a test the PostgreSQL developers run as is.
//
// A spec is setup blocks, an optional teardown, sessions (each with an
// optional setup, its steps and an optional teardown) and permutations:
//
//	setup { CREATE TABLE t (k int PRIMARY KEY, v int); }
//	teardown { DROP TABLE t; }
//	session s1
//	setup { BEGIN ISOLATION LEVEL REPEATABLE READ; }
//	step s1u { UPDATE t SET v = 1 WHERE k = 1; }
//	step s1c { COMMIT; }
//	session s2
//	step s2u { UPDATE t SET v = 2 WHERE k = 1; }
//	permutation s1u s2u s1c
//
// The tester runs the setup blocks, each session's setup in session
// order, a permutation's steps in its order (a step that waits for a lock
// lets the next one start), then the sessions' teardowns and the teardown.
// A txlab case is the same thing with one statement a step: Parse gives
// one case per permutation (every interleaving of the sessions' steps when
// the spec lists none), the sessions numbered as connections. The level a
// session's transactions run at becomes the case's isolation header (see
// package levels); the teardown is left out, as a case runs on fresh
// tables. Write is the other direction, and a spec it writes parses back
// to the case it was written from.
package pgspec

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/txlab/txlab/convert/internal/levels"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// MaxPermutations bounds the interleavings Parse makes of a spec that
// lists no permutation: the tester runs every one, and their number grows
// as a factorial of the steps.
const MaxPermutations = 200

// Spec is a parsed spec file.
type Spec struct {
	Setup    []Block // in order
	Teardown *Block
	Sessions []*Session
	// Permutations lists the step names of each permutation; none means
	// every interleaving.
	Permutations []Permutation
	// Comments are the # lines before the first keyword.
	Comments []string
}

// Block is one { … } SQL block and the line it starts on.
type Block struct {
	SQL  string
	Line int
}

// Session is one session of a spec.
type Session struct {
	Name     string
	Setup    *Block
	Steps    []Step
	Teardown *Block
	Line     int
}

// Step is one named step.
type Step struct {
	Name string
	Block
}

// Permutation is one permutation line: its steps' names (the blocking
// markers in parentheses are read and dropped: txlab finds waits itself).
type Permutation struct {
	Steps []string
	Line  int
}

// token kinds
const (
	tEOF = iota
	tWord
	tBlock
	tPunct
)

type token struct {
	kind int
	text string
	line int
}

// lex cuts a spec into identifiers (bare or "quoted"), { … } blocks and
// the punctuation of permutation markers; # starts a comment to the end
// of its line outside blocks. A block ends at the first }, as in the
// tester's own scanner.
func lex(name, src string) ([]token, []string, error) {
	var toks []token
	var lead []string // # comments before the first token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			if len(toks) == 0 {
				lead = append(lead, strings.TrimSpace(strings.TrimPrefix(src[i:i+j], "#")))
			}
			i += j
		case c == '{':
			j := strings.IndexByte(src[i+1:], '}')
			if j < 0 {
				return nil, nil, &testcase.Error{Name: name, Line: line, Msg: "a { block has no closing }"}
			}
			body := src[i+1 : i+1+j]
			toks = append(toks, token{tBlock, body, line})
			line += strings.Count(body, "\n")
			i += j + 2
		case c == '"':
			j := strings.IndexByte(src[i+1:], '"')
			if j < 0 || strings.Contains(src[i+1:i+1+j], "\n") {
				return nil, nil, &testcase.Error{Name: name, Line: line, Msg: "a quoted name has no closing \""}
			}
			toks = append(toks, token{tWord, src[i+1 : i+1+j], line})
			i += j + 2
		case c == '(' || c == ')' || c == ',' || c == '*':
			toks = append(toks, token{tPunct, string(c), line})
			i++
		case isIdent(c):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			toks = append(toks, token{tWord, src[i:j], line})
			i = j
		default:
			return nil, nil, &testcase.Error{Name: name, Line: line, Msg: fmt.Sprintf("unexpected %q", c)}
		}
	}
	return toks, lead, nil
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// ParseSpec reads a spec's structure; errors name the line.
func ParseSpec(name string, r io.Reader) (*Spec, error) {
	src, err := io.ReadAll(io.LimitReader(r, testcase.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(src) > testcase.MaxBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most a case file may hold", name, testcase.MaxBytes)
	}
	toks, lead, err := lex(name, string(src))
	if err != nil {
		return nil, err
	}
	p := &parser{name: name, toks: toks}
	sp := &Spec{Comments: lead}
	fail := func(t token, format string, args ...any) error {
		return &testcase.Error{Name: name, Line: t.line, Msg: fmt.Sprintf(format, args...)}
	}
	block := func(what string) (*Block, error) {
		t := p.next()
		if t.kind != tBlock {
			return nil, fail(t, "%s wants a { … } block", what)
		}
		return &Block{SQL: t.text, Line: t.line}, nil
	}
	steps := map[string]bool{}
	for p.peek().kind != tEOF {
		t := p.next()
		if t.kind != tWord {
			return nil, fail(t, "want setup, teardown, session or permutation, not %q", t.text)
		}
		switch kw := strings.ToLower(t.text); {
		case kw == "setup" && len(sp.Sessions) == 0:
			b, err := block("setup")
			if err != nil {
				return nil, err
			}
			sp.Setup = append(sp.Setup, *b)
		case kw == "teardown" && len(sp.Sessions) == 0:
			if sp.Teardown != nil {
				return nil, fail(t, "a second teardown")
			}
			b, err := block("teardown")
			if err != nil {
				return nil, err
			}
			sp.Teardown = b
		case kw == "session" && len(sp.Permutations) == 0:
			n := p.next()
			if n.kind != tWord {
				return nil, fail(n, "session wants a name")
			}
			s := &Session{Name: n.text, Line: t.line}
			for _, o := range sp.Sessions {
				if o.Name == s.Name {
					return nil, fail(n, "a second session %s", s.Name)
				}
			}
			if w := p.peek(); w.kind == tWord && strings.EqualFold(w.text, "setup") {
				p.next()
				if s.Setup, err = block("setup"); err != nil {
					return nil, err
				}
			}
			for w := p.peek(); w.kind == tWord && strings.EqualFold(w.text, "step"); w = p.peek() {
				p.next()
				n := p.next()
				if n.kind != tWord {
					return nil, fail(n, "step wants a name")
				}
				if steps[n.text] {
					return nil, fail(n, "a second step %s", n.text)
				}
				steps[n.text] = true
				b, err := block("step " + n.text)
				if err != nil {
					return nil, err
				}
				s.Steps = append(s.Steps, Step{Name: n.text, Block: *b})
			}
			if len(s.Steps) == 0 {
				return nil, fail(n, "session %s has no step", s.Name)
			}
			if w := p.peek(); w.kind == tWord && strings.EqualFold(w.text, "teardown") {
				p.next()
				if s.Teardown, err = block("teardown"); err != nil {
					return nil, err
				}
			}
			sp.Sessions = append(sp.Sessions, s)
		case kw == "permutation" && len(sp.Sessions) > 0:
			perm := Permutation{Line: t.line}
			for w := p.peek(); w.kind == tWord && !keyword(w.text); w = p.peek() {
				p.next()
				if !steps[w.text] {
					return nil, fail(w, "permutation names step %s, which no session has", w.text)
				}
				perm.Steps = append(perm.Steps, w.text)
				if p.peek().kind == tPunct && p.peek().text == "(" {
					// Blocking markers: s1a(s2b), s1a(*), s1a(s2b notices 1).
					p.next()
					for {
						m := p.next()
						if m.kind == tEOF {
							return nil, fail(m, "a ( marker is not closed")
						}
						if m.kind == tPunct && m.text == ")" {
							break
						}
					}
				}
			}
			if len(perm.Steps) == 0 {
				return nil, fail(t, "permutation names no step")
			}
			sp.Permutations = append(sp.Permutations, perm)
		default:
			return nil, fail(t, "%q here: a spec is setup and teardown blocks, then sessions (setup, steps, teardown), then permutations", t.text)
		}
	}
	if len(sp.Sessions) == 0 {
		return nil, &testcase.Error{Name: name, Msg: "no session: a spec has sessions with steps"}
	}
	return sp, nil
}

func keyword(s string) bool {
	switch strings.ToLower(s) {
	case "setup", "teardown", "session", "step", "permutation":
		return true
	}
	return false
}

type parser struct {
	name string
	toks []token
	i    int
}

func (p *parser) peek() token {
	if p.i >= len(p.toks) {
		line := 0
		if len(p.toks) > 0 {
			line = p.toks[len(p.toks)-1].line
		}
		return token{kind: tEOF, line: line}
	}
	return p.toks[p.i]
}

func (p *parser) next() token {
	t := p.peek()
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// Parse reads a spec and returns one case per permutation, in the spec's
// order (every interleaving, in order, when it lists none; more than
// MaxPermutations is refused). Each case's comment names the spec and the
// permutation.
func Parse(name string, r io.Reader) ([]*testcase.Case, error) {
	sp, err := ParseSpec(name, r)
	if err != nil {
		return nil, err
	}
	return sp.Cases(name)
}

// Cases turns the spec into cases, one per permutation.
func (sp *Spec) Cases(name string) ([]*testcase.Case, error) {
	perms := sp.Permutations
	listed := len(perms) > 0
	if !listed {
		var err error
		if perms, err = sp.interleavings(); err != nil {
			return nil, &testcase.Error{Name: name, Msg: err.Error()}
		}
	}
	nums := sp.numbers()
	owner := map[string]*Session{}
	steps := map[string]Step{}
	for _, s := range sp.Sessions {
		for _, st := range s.Steps {
			owner[st.Name], steps[st.Name] = s, st
		}
	}
	var setup []string
	for _, b := range sp.Setup {
		stmts, err := split(name, b)
		if err != nil {
			return nil, err
		}
		for _, s := range stmts {
			setup = append(setup, s.SQL)
		}
	}
	var out []*testcase.Case
	for k, perm := range perms {
		// Each connection's statements in the order the tester runs
		// them: session setups, the permutation, session teardowns.
		type placed struct {
			conn int
			levels.Stmt
		}
		var order []placed
		size := 0
		add := func(conn int, b *Block) error {
			if b == nil {
				return nil
			}
			stmts, err := split(name, *b)
			for _, s := range stmts {
				order = append(order, placed{conn, s})
				size += len(s.SQL)
			}
			// A permutation may name a step any number of times: bound
			// the case as it grows, not once it is whole (a 100 KB step
			// named 250,000 times took 17 GB).
			if len(order)+len(setup) > testcase.MaxStatements || size > testcase.MaxBytes {
				return &testcase.Error{Name: name, Line: perm.Line, Msg: fmt.Sprintf("permutation %d: more than %d statements or %d bytes, the most a case may hold", k+1, testcase.MaxStatements, testcase.MaxBytes)}
			}
			return err
		}
		for _, s := range sp.Sessions {
			if err := add(nums[s], s.Setup); err != nil {
				return nil, err
			}
		}
		for _, st := range perm.Steps {
			b := steps[st].Block
			if err := add(nums[owner[st]], &b); err != nil {
				return nil, err
			}
		}
		for _, s := range sp.Sessions {
			if err := add(nums[s], s.Teardown); err != nil {
				return nil, err
			}
		}
		// Levels are per connection: resolve each one's statements and
		// put the rewritten ones back in their places.
		c := &testcase.Case{Name: name, Setup: setup, DBMS: "postgres"}
		conns := map[int][]int{} // conn → indexes into order
		for i, p := range order {
			conns[p.conn] = append(conns[p.conn], i)
		}
		lv := map[int]target.Level{}
		keep := make([]bool, len(order))
		for _, s := range sp.Sessions {
			n := nums[s]
			var stmts []levels.Stmt
			for _, i := range conns[n] {
				stmts = append(stmts, order[i].Stmt)
			}
			got, l, err := levels.Resolve("session "+s.Name, stmts)
			if err != nil {
				return nil, &testcase.Error{Name: name, Line: s.Line, Msg: err.Error()}
			}
			for j, i := range conns[n] {
				order[i].SQL, keep[i] = got[j], got[j] != ""
			}
			if l != "" {
				lv[n] = l
			}
		}
		for i, p := range order {
			if keep[i] {
				c.Steps = append(c.Steps, testcase.Step{Conn: p.conn, SQL: p.SQL, Line: p.Line})
			}
		}
		if len(c.Steps) == 0 {
			return nil, &testcase.Error{Name: name, Line: perm.Line, Msg: "the permutation runs no statement"}
		}
		levels.Set(c, lv)
		what := "permutation"
		if !listed {
			what = "interleaving"
		}
		c.Comments = []string{fmt.Sprintf("Converted by txlab import --from pg-isolation from %s, %s %d of %d:", name, what, k+1, len(perms)),
			"  " + strings.Join(perm.Steps, " ")}
		if len(perms) > 1 {
			c.Name = fmt.Sprintf("%s#%d", name, k+1)
		}
		if err := c.Validate(); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// numbered matches a session name that ends in its number (s1, conn2).
var numbered = regexp.MustCompile(`^[A-Za-z_]*?([1-9][0-9]{0,3})$`)

// numbers gives each session its connection number: the number its name
// ends in when every session's does and no two share one (s1, s2: what
// Write names them), else its place in the spec.
func (sp *Spec) numbers() map[*Session]int {
	nums := map[*Session]int{}
	seen := map[int]bool{}
	for _, s := range sp.Sessions {
		m := numbered.FindStringSubmatch(s.Name)
		if m == nil {
			break
		}
		n, _ := strconv.Atoi(m[1])
		if seen[n] {
			break
		}
		seen[n], nums[s] = true, n
	}
	if len(nums) == len(sp.Sessions) {
		return nums
	}
	for i, s := range sp.Sessions {
		nums[s] = i + 1
	}
	return nums
}

// interleavings lists every order of the sessions' steps that keeps each
// session's own order, as the tester runs a spec without permutations.
func (sp *Spec) interleavings() ([]Permutation, error) {
	n := 1.0
	total := 0
	for _, s := range sp.Sessions {
		for i := 1; i <= len(s.Steps); i++ {
			total++
			n = n * float64(total) / float64(i)
		}
	}
	if n > MaxPermutations {
		return nil, fmt.Errorf("no permutation listed, and the %d steps interleave %.0f ways (more than %d)", total, n, MaxPermutations)
	}
	var out []Permutation
	pos := make([]int, len(sp.Sessions))
	var cur []string
	var walk func()
	walk = func() {
		if len(cur) == total {
			out = append(out, Permutation{Steps: append([]string(nil), cur...)})
			return
		}
		for i, s := range sp.Sessions {
			if pos[i] < len(s.Steps) {
				cur = append(cur, s.Steps[pos[i]].Name)
				pos[i]++
				walk()
				pos[i]--
				cur = cur[:len(cur)-1]
			}
		}
	}
	walk()
	return out, nil
}

// split cuts a block into its statements; the line of each is its
// block's line plus the newlines before it.
func split(name string, b Block) ([]levels.Stmt, error) {
	stmts, err := testcase.SplitStatements(b.SQL)
	if err != nil {
		return nil, &testcase.Error{Name: name, Line: b.Line, Msg: err.Error()}
	}
	var out []levels.Stmt
	from := 0
	for _, s := range stmts {
		line := b.Line
		if i := strings.Index(b.SQL[from:], firstLine(s)); i >= 0 {
			line += strings.Count(b.SQL[:from+i], "\n")
			from += i
		}
		out = append(out, levels.Stmt{SQL: s, Line: line})
	}
	return out, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

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
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/txlab/txlab/convert/internal/levels"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// MaxCases bounds the cases Parse makes of one spec: a spec that lists no
// permutation makes one per interleaving, and their number grows as a
// factorial of the steps. PostgreSQL's own specs make at most about 1,430
// (prepared-transactions.spec lists them; receipt-report.spec, which lists
// none, interleaves 210 ways).
const MaxCases = 2000

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
// order (every interleaving, in order, when it lists none); a spec that
// makes more than MaxCases cases is refused (Count, then Each, converts
// any number, one at a time). Each case's comment names the spec and the
// permutation.
func Parse(name string, r io.Reader) ([]*testcase.Case, error) {
	sp, err := ParseSpec(name, r)
	if err != nil {
		return nil, err
	}
	return sp.Cases(name)
}

// Cases turns the spec into cases, one per permutation; more than
// MaxCases is refused.
func (sp *Spec) Cases(name string) ([]*testcase.Case, error) {
	if n := sp.Count(); n > MaxCases {
		return nil, &testcase.Error{Name: name, Msg: fmt.Sprintf("%s, more than the %d cases Parse makes", sp.CountText(), MaxCases)}
	}
	var out []*testcase.Case
	err := sp.Each(context.Background(), name, func(c *testcase.Case, _, _ int) error {
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Count is the number of cases the spec makes: its permutations, or when
// it lists none the interleavings of its sessions' steps, which grow as a
// factorial of the steps (math.MaxInt64 stands for any number past it).
// It costs nothing next to making them: look before calling Each.
func (sp *Spec) Count() int64 {
	if len(sp.Permutations) > 0 {
		return int64(len(sp.Permutations))
	}
	// The multinomial coefficient, one factor at a time: every partial
	// product is a binomial coefficient's, so each division is exact,
	// and none decreases, so the first past MaxInt64 is the answer's.
	n, limit := big.NewInt(1), big.NewInt(math.MaxInt64)
	total := int64(0)
	for _, s := range sp.Sessions {
		for i := int64(1); i <= int64(len(s.Steps)); i++ {
			total++
			n.Mul(n, big.NewInt(total))
			n.Quo(n, big.NewInt(i))
			if n.Cmp(limit) > 0 {
				return math.MaxInt64
			}
		}
	}
	return n.Int64()
}

// CountText says what Count counts, for a refusal: "32784 permutations",
// "no permutation listed, and its 12 steps interleave 34650 ways".
func (sp *Spec) CountText() string {
	n := sp.Count()
	if len(sp.Permutations) > 0 {
		return fmt.Sprintf("%d permutations", n)
	}
	steps := 0
	for _, s := range sp.Sessions {
		steps += len(s.Steps)
	}
	ways := strconv.FormatInt(n, 10)
	if n == math.MaxInt64 {
		ways = "more than 9.2e18"
	}
	return fmt.Sprintf("no permutation listed, and its %d steps interleave %s ways", steps, ways)
}

// Each makes the spec's cases one at a time, in the order Cases gives
// them, and calls emit with each, its index (from 0) and Count; the
// interleavings of a spec that lists no permutation are walked, never
// held, so Each holds one case whatever Count is. It stops at the first
// error emit returns, and when ctx is done (with ctx's error), checking
// before each case.
func (sp *Spec) Each(ctx context.Context, name string, emit func(c *testcase.Case, k, n int) error) error {
	listed := len(sp.Permutations) > 0
	count := sp.Count()
	nums := sp.numbers()
	owner := map[string]*Session{}
	steps := map[string]*Block{}
	for _, s := range sp.Sessions {
		for i := range s.Steps {
			owner[s.Steps[i].Name], steps[s.Steps[i].Name] = s, &s.Steps[i].Block
		}
	}
	var setup []string
	for _, b := range sp.Setup {
		stmts, err := split(name, b)
		if err != nil {
			return err
		}
		for _, s := range stmts {
			setup = append(setup, s.SQL)
		}
	}
	// A block is split once, however many permutations name it (a
	// permutation may name a step any number of times).
	type splitBlock struct {
		stmts []levels.Stmt
		err   error
	}
	splits := map[*Block]splitBlock{}
	splitOnce := func(b *Block) ([]levels.Stmt, error) {
		if r, ok := splits[b]; ok {
			return r.stmts, r.err
		}
		stmts, err := split(name, *b)
		splits[b] = splitBlock{stmts, err}
		return stmts, err
	}
	k := 0
	one := func(perm Permutation) error {
		if err := ctx.Err(); err != nil {
			return err
		}
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
			stmts, err := splitOnce(b)
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
				return err
			}
		}
		for _, st := range perm.Steps {
			if err := add(nums[owner[st]], steps[st]); err != nil {
				return err
			}
		}
		for _, s := range sp.Sessions {
			if err := add(nums[s], s.Teardown); err != nil {
				return err
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
				return &testcase.Error{Name: name, Line: s.Line, Msg: err.Error()}
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
			return &testcase.Error{Name: name, Line: perm.Line, Msg: "the permutation runs no statement"}
		}
		levels.Set(c, lv)
		what := "permutation"
		if !listed {
			what = "interleaving"
		}
		c.Comments = []string{fmt.Sprintf("Converted by txlab import --from pg-isolation from %s, %s %d of %d:", name, what, k+1, count),
			"  " + strings.Join(perm.Steps, " ")}
		if count > 1 {
			c.Name = fmt.Sprintf("%s#%d", name, k+1)
		}
		// Every case has the same setup: check it with the first one
		// only (checking a 7,000-row setup took 17 ms a case), and the
		// rest without it. Validate checks each setup statement on its
		// own and that the printed case reads back, and the setup's
		// lines read back the same whatever steps follow them (none
		// starts like a step: the first check refuses that); the
		// statement bound is add's.
		v := c
		if k > 0 {
			nc := *c
			nc.Setup = nil
			v = &nc
		}
		if err := v.Validate(); err != nil {
			return err
		}
		k++
		return emit(c, k-1, int(count))
	}
	if listed {
		for _, perm := range sp.Permutations {
			if err := one(perm); err != nil {
				return err
			}
		}
		return nil
	}
	return sp.interleavings(func(steps []string) error {
		return one(Permutation{Steps: steps})
	})
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

// interleavings calls f with every order of the sessions' steps that
// keeps each session's own order, as the tester runs a spec without
// permutations, one at a time (f must not keep the slice), and stops at
// the first error f returns.
func (sp *Spec) interleavings(f func([]string) error) error {
	total := 0
	for _, s := range sp.Sessions {
		total += len(s.Steps)
	}
	pos := make([]int, len(sp.Sessions))
	cur := make([]string, 0, total)
	var walk func() error
	walk = func() error {
		if len(cur) == total {
			return f(cur)
		}
		for i, s := range sp.Sessions {
			if pos[i] < len(s.Steps) {
				cur = append(cur, s.Steps[pos[i]].Name)
				pos[i]++
				err := walk()
				pos[i]--
				cur = cur[:len(cur)-1]
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk()
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

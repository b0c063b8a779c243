package pgspec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Write prints c as an isolation-tester spec: its setup in one setup
// block, a teardown that drops the tables the setup creates (the tester
// runs every spec in one database), one session per connection (s1 for
// connection 1) whose setup sets the connection's level, one step per
// statement (s1a, s1b, …) and one permutation, the case's submitted order.
// The case's comments head the file as # lines. A statement holding a }
// cannot be written: the tester's scanner ends a block at the first one.
func Write(c *testcase.Case) (string, error) {
	var b strings.Builder
	for _, com := range c.Comments {
		b.WriteString(strings.TrimRight("# "+com, " ") + "\n")
	}
	if len(c.Comments) > 0 {
		b.WriteString("\n")
	}
	block := func(sqls []string, indent string) (string, error) {
		var w strings.Builder
		for _, s := range sqls {
			if strings.Contains(s, "}") {
				return "", fmt.Errorf("statement %q holds a }, which ends an isolation-tester block", oneLine(s))
			}
			w.WriteString(indent + strings.ReplaceAll(s, "\n", "\n"+indent) + ";\n")
		}
		return w.String(), nil
	}
	if len(c.Setup) > 0 {
		body, err := block(c.Setup, "  ")
		if err != nil {
			return "", err
		}
		b.WriteString("setup\n{\n" + body + "}\n\n")
	}
	if drops := Drops(c.Setup); len(drops) > 0 {
		body, _ := block(drops, "  ")
		b.WriteString("teardown\n{\n" + body + "}\n")
	}
	names := StepNames(c)
	for _, conn := range c.Conns() {
		fmt.Fprintf(&b, "\nsession s%d\n", conn)
		if l := c.LevelOf(conn); l != "" {
			fmt.Fprintf(&b, "setup\t{ SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL %s; }\n", LevelName(l))
		}
		for i, s := range c.Steps {
			if s.Conn != conn {
				continue
			}
			body, err := block([]string{s.SQL}, "")
			if err != nil {
				return "", err
			}
			body = strings.TrimSuffix(body, "\n")
			if strings.Contains(body, "\n") {
				// Verbatim, not indented: the block's text is the statement.
				fmt.Fprintf(&b, "step %s\n{\n%s\n}\n", names[i], body)
			} else {
				fmt.Fprintf(&b, "step %s\t{ %s }\n", names[i], body)
			}
		}
	}
	b.WriteString("\npermutation")
	for i := range c.Steps {
		b.WriteString(" " + names[i])
	}
	b.WriteString("\n")
	return b.String(), nil
}

// StepNames are the spec's names of c's steps: s<conn> and a letter in
// the connection's order (s1a, s1b, …, then s1_27, s1_28, …).
func StepNames(c *testcase.Case) []string {
	k := map[int]int{}
	out := make([]string, len(c.Steps))
	for i, s := range c.Steps {
		k[s.Conn]++
		if n := k[s.Conn]; n <= 26 {
			out[i] = fmt.Sprintf("s%d%c", s.Conn, 'a'+n-1)
		} else {
			out[i] = fmt.Sprintf("s%d_%d", s.Conn, n)
		}
	}
	return out
}

// LevelName is a level as SQL names it (READ COMMITTED).
func LevelName(l target.Level) string {
	return strings.ToUpper(strings.ReplaceAll(string(l), "-", " "))
}

var createRE = regexp.MustCompile(`(?is)^CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL\s+|LOCAL\s+)?(?:TEMP|TEMPORARY)\s+|UNLOGGED\s+)?(TABLE|VIEW|SEQUENCE)\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z0-9_."` + "`" + `]+)`)

// Drops are the statements that drop what the setup creates (tables,
// views, sequences), last created first: a vendor's suite runs its tests
// in one database, and a test leaves it as it found it.
func Drops(setup []string) []string {
	var out []string
	for i := len(setup) - 1; i >= 0; i-- {
		if m := createRE.FindStringSubmatch(strings.TrimSpace(setup[i])); m != nil {
			out = append(out, fmt.Sprintf("DROP %s IF EXISTS %s", strings.ToUpper(m[1]), m[2]))
		}
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

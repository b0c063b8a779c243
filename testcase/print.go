package testcase

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// String prints the case in the case file format: headers, comment lines,
// setup statements and the steps, each statement ending with ';'. For a case
// that passes Validate, parsing the output gives the case back (Equal).
func (c *Case) String() string {
	var b strings.Builder
	header := func(key, val string) {
		if val != "" {
			fmt.Fprintf(&b, "-- %s: %s\n", key, val)
		}
	}
	header("isolation", string(c.Isolation))
	for _, conn := range slices.Sorted(maps.Keys(c.ConnIsolation)) {
		header(fmt.Sprintf("isolation.%d", conn), string(c.ConnIsolation[conn]))
	}
	header("dbms", c.DBMS)
	header("mode", c.Mode)
	header("seed", c.Seed)
	header("expect", c.Expect)
	header("reduced-from", c.ReducedFrom)
	header("finding", c.Finding)
	header("replay", c.Replay)
	for _, key := range knownHeaderKeys {
		header(key, *c.Known.field(key))
	}
	for _, com := range c.Comments {
		if com == "" {
			b.WriteString("--\n")
		} else {
			b.WriteString("-- " + com + "\n")
		}
	}
	for _, s := range c.Setup {
		b.WriteString(s + ";\n")
	}
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "%d> %s;\n", s.Conn, s.SQL)
	}
	return b.String()
}

// Equal reports whether two cases hold the same headers, comments and
// statements. Name and Step.Line, which say where a case came from, are
// ignored, and so is the difference between nil and empty.
func (c *Case) Equal(o *Case) bool {
	if c.Isolation != o.Isolation || c.DBMS != o.DBMS || c.Mode != o.Mode ||
		c.Seed != o.Seed || c.Expect != o.Expect || c.ReducedFrom != o.ReducedFrom || c.Finding != o.Finding || c.Known != o.Known ||
		!maps.Equal(c.ConnIsolation, o.ConnIsolation) ||
		!slices.Equal(c.Comments, o.Comments) || !slices.Equal(c.Setup, o.Setup) ||
		len(c.Steps) != len(o.Steps) {
		return false
	}
	for i, s := range c.Steps {
		if s.Conn != o.Steps[i].Conn || s.SQL != o.Steps[i].SQL {
			return false
		}
	}
	return true
}

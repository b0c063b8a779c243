package mysqltest

import (
	"fmt"
	"strings"

	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/testcase"
)

// Outcomes are what a run of the case showed of its statements, by step
// index: the ones that waited for a lock (sent, and reaped later, as the
// suite writes them) and the error code each failing one returned (an
// --error line, without which mysqltest stops at the error).
type Outcomes struct {
	Blocked map[int]bool
	Errors  map[int]string
}

// Write prints c as a mysql-test file: the setup on the default
// connection, one connection per case connection (con1 for connection 1)
// opened at its first statement and set to its level, the statements in
// the case's submitted order with --connection between them, each one
// that waited (o.Blocked) sent with send and reaped before its connection
// runs the next, and at the end the connections closed and the setup's
// tables dropped (mysql-test-run checks that a test leaves the server as
// it found it). The .result file is mysql-test-run --record's to write.
func Write(c *testcase.Case, o Outcomes) string {
	var b strings.Builder
	for _, com := range c.Comments {
		b.WriteString(strings.TrimRight("# "+com, " ") + "\n")
	}
	b.WriteString("--source include/have_innodb.inc\n\n")
	for _, s := range c.Setup {
		b.WriteString(s + ";\n")
	}
	cur := "default"
	open := map[int]bool{}
	sent := map[int]int{} // conn → the step it sent, not reaped yet
	reap := func(conn int) {
		i, ok := sent[conn]
		if !ok {
			return
		}
		if code := o.Errors[i]; code != "" {
			fmt.Fprintf(&b, "--error %s\n", code)
		}
		b.WriteString("--reap\n")
		delete(sent, conn)
	}
	for i, s := range c.Steps {
		name := fmt.Sprintf("con%d", s.Conn)
		if !open[s.Conn] {
			open[s.Conn] = true
			fmt.Fprintf(&b, "\n--connect (%s,localhost,root,,)\n", name)
			if l := c.LevelOf(s.Conn); l != "" {
				fmt.Fprintf(&b, "SET SESSION TRANSACTION ISOLATION LEVEL %s;\n", pgspec.LevelName(l))
			}
		} else if cur != name {
			fmt.Fprintf(&b, "\n--connection %s\n", name)
		}
		cur = name
		reap(s.Conn)
		if o.Blocked[i] {
			if strings.Contains(s.SQL, "\n") {
				b.WriteString("send " + s.SQL + ";\n")
			} else {
				b.WriteString("--send " + s.SQL + "\n")
			}
			sent[s.Conn] = i
			continue
		}
		if code := o.Errors[i]; code != "" {
			fmt.Fprintf(&b, "--error %s\n", code)
		}
		b.WriteString(s.SQL + ";\n")
	}
	conns := c.Conns()
	for _, n := range conns {
		if _, ok := sent[n]; ok {
			fmt.Fprintf(&b, "\n--connection con%d\n", n)
			reap(n)
		}
	}
	b.WriteString("\n")
	for _, n := range conns {
		fmt.Fprintf(&b, "--disconnect con%d\n", n)
	}
	b.WriteString("--connection default\n")
	for _, d := range pgspec.Drops(c.Setup) {
		b.WriteString(d + ";\n")
	}
	return b.String()
}

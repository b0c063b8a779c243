package instrument

import (
	"fmt"
	"maps"
	"slices"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Step describes one step of the instrumented case.
type Step struct {
	// Orig is the index of the original case step it was made from; -1 for
	// the final read.
	Orig int
	// Group numbers the original statement (or final-read table) the step
	// belongs to; a pre-read and its main statement share one group, and
	// Record merges them into one history.Stmt.
	Group int
	// Txn is the transaction id: the "Tn" written into wLists.
	Txn  int64
	Role Role
	// Info is shared by the steps of one group; nil for BEGIN, COMMIT and
	// ROLLBACK.
	Info *Info
}

// Plan is an instrumented case and the map back to the original.
type Plan struct {
	Original *testcase.Case
	// Case runs through executor.Run unchanged: setup with hidden columns, the
	// rewritten steps, and the final read on its own connection.
	Case    *testcase.Case
	Dialect sqlast.Dialect
	Steps   []Step // parallel to Case.Steps
	// Txns are the original case's transactions; their IDs are the Tn of
	// the history.
	Txns []*testcase.Txn
	// Setup describes each setup statement (parallel to Case.Setup).
	Setup []Info
	// FinalTxn and FinalConn identify the final full read.
	FinalTxn  int64
	FinalConn int
	// Tables are the tables with hidden columns the final read reads:
	// those of the setup and those the steps created.
	Tables []string
}

// Instrument rewrites case c for dialect d. Statements outside the subset
// run as written and are reported uninstrumented (Info.Instrumented false);
// an autocommit statement that needs a pre-read is wrapped in BEGIN …
// COMMIT so the read and the write are one transaction. A transaction
// reading every table is appended on a new connection, after all others.
func Instrument(c *testcase.Case, info target.Info) (*Plan, error) {
	d := info.Dialect
	if d == sqlast.DialectNone {
		return nil, fmt.Errorf("instrument: no dialect")
	}
	rw := NewRewriter(info)
	out := *c
	out.ConnIsolation = maps.Clone(c.ConnIsolation)
	out.Setup = make([]string, len(c.Setup))
	out.Steps = nil
	p := &Plan{Original: c, Case: &out, Dialect: d, Txns: testcase.Transactions(c)}
	for i, s := range c.Setup {
		sql, info := rw.Setup(s)
		out.Setup[i] = sql
		p.Setup = append(p.Setup, info)
	}
	byStep := make([]*testcase.Txn, len(c.Steps))
	for _, t := range p.Txns {
		for _, s := range t.Steps {
			byStep[s] = t
		}
	}
	add := func(conn int, sql string, st Step) {
		out.Steps = append(out.Steps, testcase.Step{Conn: conn, SQL: sql})
		p.Steps = append(p.Steps, st)
	}
	group := 0
	for i, s := range c.Steps {
		t := byStep[i]
		id := int64(t.ID)
		if testcase.ControlOf(s.SQL) != testcase.NotControl {
			add(s.Conn, s.SQL, Step{Orig: i, Group: -1, Txn: id, Role: RoleMain})
			continue
		}
		sent, info := rw.Statement(s.SQL, id)
		wrap := !t.Explicit && len(sent) > 1
		if wrap {
			add(s.Conn, "BEGIN", Step{Orig: i, Group: -1, Txn: id, Role: RoleBegin})
		}
		for _, x := range sent {
			add(s.Conn, x.SQL, Step{Orig: i, Group: group, Txn: id, Role: x.Role, Info: &info})
		}
		if wrap {
			add(s.Conn, "COMMIT", Step{Orig: i, Group: -1, Txn: id, Role: RoleCommit})
		}
		group++
	}
	p.FinalTxn = int64(len(p.Txns) + 1)
	p.FinalConn = 1
	for _, conn := range c.Conns() {
		p.FinalConn = max(p.FinalConn, conn+1)
	}
	add(p.FinalConn, "BEGIN", Step{Orig: -1, Group: -1, Txn: p.FinalTxn, Role: RoleBegin})
	// Tables the steps created are read too; TEMPORARY ones only exist
	// for the connection that made them.
	p.Tables = slices.Clone(rw.Shared())
	for _, tbl := range p.Tables {
		info := &Info{Kind: "SELECT", Instrumented: true}
		add(p.FinalConn, rw.FullRead(tbl), Step{Orig: -1, Group: group, Txn: p.FinalTxn, Role: RoleFinalRead, Info: info})
		group++
	}
	add(p.FinalConn, "COMMIT", Step{Orig: -1, Group: -1, Txn: p.FinalTxn, Role: RoleCommit})
	return p, nil
}

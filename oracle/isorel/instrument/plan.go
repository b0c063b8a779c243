package instrument

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/txlab/txlab/features"
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
	// Sub indexes Info.Subs for a RoleSubRead.
	Sub int
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
	// FinalTxn and FinalConn identify the final read: the versions of the
	// final state the executor dumps once every connection has ended
	// (Record turns them into a last transaction's reads). A read of its
	// own, on a connection of its own, would run while the case's
	// transactions are still open: at SERIALIZABLE on InnoDB it waits for
	// their locks and the run never ends.
	FinalTxn  int64
	FinalConn int
	// finalReads are the final read's statements as a history shows them.
	finalReads map[string]string
	// names names the rows of a final state by their values.
	names func(target.State) map[string]string
	// Unjudged, when set (its Reason not NoReason), says why the history
	// of this case cannot be judged: its transactions are not the ones
	// Record sees (a statement that commits the transaction implicitly,
	// XA, a statement that may set off a foreign key's action: fk.go).
	Unjudged Unjudged
	// Tables are the tables with hidden columns the final read reads:
	// those of the setup and those the steps created.
	Tables []string
}

// Reason is why a case's history cannot be judged (Plan.Unjudged): a value
// the oracle decides by, where a sentence is for people (Unjudged.String).
type Reason int

// The reasons.
const (
	NoReason Reason = iota // the history can be judged
	// ImplicitCommit: a MySQL-family statement inside an explicit
	// transaction commits it by itself.
	ImplicitCommit
	// XATransaction: an XA statement (Record knows BEGIN, COMMIT and
	// ROLLBACK only).
	XATransaction
	// SavepointRollback: a ROLLBACK TO SAVEPOINT undoes versions that
	// were read.
	SavepointRollback
	// SkipLocked: a locking read leaves out the rows others hold locked.
	SkipLocked
	// MayCascade: a statement may set off a foreign key's action, whose
	// writes the hidden columns do not follow (fk.go).
	MayCascade
)

// Unjudged is why a case's history cannot be judged, with the statement
// that makes it so; the zero value says it can be.
type Unjudged struct {
	Reason Reason
	// SQL is the statement, as the case has it.
	SQL string
	// Txn is the transaction an ImplicitCommit statement commits.
	Txn int
}

// String says why in a sentence, "an XA transaction (XA START 'x')"; ""
// for NoReason.
func (u Unjudged) String() string {
	switch u.Reason {
	case ImplicitCommit:
		return fmt.Sprintf("T%d's %q commits it implicitly", u.Txn, u.SQL)
	case XATransaction:
		return "an XA transaction (" + u.SQL + ")"
	case SavepointRollback:
		return "a rollback to a savepoint (" + u.SQL + ")"
	case SkipLocked:
		return "a read that skips locked rows (" + u.SQL + ")"
	case MayCascade:
		return "a statement that may cascade (on-delete-cascade): " + u.SQL
	}
	return ""
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
	views := rw.predicateSteps(c, info, byStep)
	add := func(conn int, sql string, st Step) {
		out.Steps = append(out.Steps, testcase.Step{Conn: conn, SQL: sql})
		p.Steps = append(p.Steps, st)
	}
	group := 0
	var cascade Unjudged
	for i, s := range c.Steps {
		t := byStep[i]
		id := int64(t.ID)
		k := testcase.KindOf(s)
		if k.Control != testcase.NotControl {
			add(s.Conn, s.SQL, Step{Orig: i, Group: -1, Txn: id, Role: RoleMain})
			continue
		}
		sent, info := rw.statement(k, id, views[i])
		if cascade.Reason == NoReason && rw.mayCascade(k) {
			cascade = Unjudged{Reason: MayCascade, SQL: s.SQL}
		}
		// A read before the statement must be in its transaction; the
		// read of an UPDATE's matched rows after it need not.
		wrap := !t.Explicit && slices.ContainsFunc(sent, func(x Sent) bool { return x.Role == RolePreRead })
		if wrap {
			add(s.Conn, "BEGIN", Step{Orig: i, Group: -1, Txn: id, Role: RoleBegin})
		}
		for _, x := range sent {
			add(s.Conn, x.SQL, Step{Orig: i, Group: group, Txn: id, Role: x.Role, Info: &info, Sub: x.Sub})
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
	p.Unjudged = unjudged(c, p.Txns, d)
	if p.Unjudged.Reason == NoReason {
		p.Unjudged = cascade
	}
	// Tables the steps created count too; TEMPORARY ones only exist for
	// the connection that made them.
	p.Tables = slices.Clone(rw.Shared())
	p.finalReads = make(map[string]string, len(p.Tables))
	p.names = rw.StateNames
	for _, tbl := range p.Tables {
		p.finalReads[tbl], _ = rw.SnapshotRead(tbl)
	}
	return p, nil
}

// unjudged says why Record cannot tell the transactions of case c apart:
// an XA transaction (Record knows BEGIN, COMMIT and ROLLBACK only), or, on
// the MySQL family, a statement inside an explicit transaction that
// commits it implicitly (DDL, LOCK TABLES, ANALYZE TABLE, ...: MySQL 8.0
// manual 15.3.3, "Statements That Cause an Implicit Commit"), after which
// the rest of the "transaction" runs in autocommit mode. The zero
// Unjudged when none.
func unjudged(c *testcase.Case, txns []*testcase.Txn, d sqlast.Dialect) Unjudged {
	for _, s := range c.Steps {
		k := testcase.KindOf(s)
		if k.Keyword == "XA" {
			return Unjudged{Reason: XATransaction, SQL: s.SQL}
		}
		if k.Keyword == "ROLLBACK" && rollsBackToSavepoint(s.SQL) {
			// The versions it undoes were read, by their own transaction
			// at least, and never follow in any row's history.
			return Unjudged{Reason: SavepointRollback, SQL: s.SQL}
		}
		if features.Uses(s.SQL, "skip-locked") {
			// It leaves out the rows others hold locked, whatever its
			// predicate says: an inconsistent view by design (PostgreSQL's
			// SELECT, The Locking Clause; MySQL 8.0 manual 17.7.2.4), so
			// its rows say nothing of the versions it could see.
			return Unjudged{Reason: SkipLocked, SQL: s.SQL}
		}
	}
	if d != sqlast.MySQL {
		return Unjudged{}
	}
	for _, t := range txns {
		if !t.Explicit {
			continue
		}
		for _, i := range t.Steps {
			if k := testcase.KindOf(c.Steps[i]); commitsImplicitly(k) {
				return Unjudged{Reason: ImplicitCommit, SQL: k.Of, Txn: t.ID}
			}
		}
	}
	return Unjudged{}
}

// rollsBackToSavepoint reports whether a ROLLBACK is ROLLBACK [WORK] TO …
// (testcase.SavepointOf reads only the forms with one name after it).
func rollsBackToSavepoint(sql string) bool {
	f := strings.Fields(strings.ToUpper(sql))
	return len(f) > 2 && (f[1] == "TO" || f[1] == "WORK" && f[2] == "TO")
}

// commitsImplicitly reports whether a MySQL-family statement of kind k
// ends the open transaction by itself.
func commitsImplicitly(k testcase.Kind) bool {
	switch k.Keyword {
	case "CREATE", "DROP":
		f := strings.Fields(strings.ToUpper(k.Of))
		temporary := len(f) > 1 && f[1] == "TEMPORARY" || len(f) > 3 && f[1] == "OR" && f[3] == "TEMPORARY"
		return !temporary
	case "ALTER", "RENAME", "TRUNCATE", "LOCK", "UNLOCK", "ANALYZE", "CHECK", "OPTIMIZE", "REPAIR", "FLUSH", "GRANT", "REVOKE":
		return true
	case "SET":
		return strings.Contains(strings.Join(strings.Fields(strings.ToUpper(k.Of)), ""), "AUTOCOMMIT=1")
	}
	return false
}

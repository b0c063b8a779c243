// Package levels turns the isolation-level statements of the DBMSs' own
// concurrency tests into a txlab case's isolation headers.
//
// A vendor test sets a level with a statement (SET SESSION CHARACTERISTICS,
// SET SESSION TRANSACTION, BEGIN ISOLATION LEVEL, SET TRANSACTION …); a
// txlab case names each connection's level in a header instead, because
// its oracles judge every transaction by the level the case names. Left as
// statements, the server would run a transaction at one level and the
// oracles judge it at another: a false finding. So the importers hand each
// connection's statements to Resolve, which drops the settings, rewrites
// BEGIN ISOLATION LEVEL X to BEGIN, and says the one level the connection's
// transactions run at, or why there is none (two levels on one connection).
package levels

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Scope is how far a level-setting statement reaches.
type Scope int

// Scopes of Of.
const (
	None    Scope = iota // not a level-setting statement
	Session              // every later transaction of the session
	Next                 // the next transaction (or the one just begun)
	Begin                // the transaction the statement itself begins
	Global               // other sessions (SET GLOBAL): no case can say it
)

var (
	levelWords = `(READ\s+UNCOMMITTED|READ\s+COMMITTED|REPEATABLE\s+READ|SERIALIZABLE|SNAPSHOT)`
	// SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL X (PostgreSQL).
	pgSession = regexp.MustCompile(`(?is)^SET\s+SESSION\s+CHARACTERISTICS\s+AS\s+TRANSACTION\s+ISOLATION\s+LEVEL\s+` + levelWords + `\s*$`)
	// SET [SESSION|LOCAL|GLOBAL] TRANSACTION ISOLATION LEVEL X.
	setTxn = regexp.MustCompile(`(?is)^SET\s+(SESSION\s+|LOCAL\s+|GLOBAL\s+)?TRANSACTION\s+ISOLATION\s+LEVEL\s+` + levelWords + `\s*$`)
	// SET [SESSION] default_transaction_isolation|transaction_isolation|tx_isolation = 'x'.
	setVar = regexp.MustCompile(`(?is)^SET\s+(SESSION\s+|GLOBAL\s+|@@SESSION\.|@@GLOBAL\.|@@)?(default_transaction_isolation|transaction_isolation|tx_isolation)\s*(=|TO)\s*'([A-Za-z -]+)'\s*$`)
	// BEGIN|START TRANSACTION … ISOLATION LEVEL X …: the level and the
	// text around it.
	beginLevel = regexp.MustCompile(`(?is)^(BEGIN|START\s+TRANSACTION)\b(.*?)\s*,?\s*ISOLATION\s+LEVEL\s+` + levelWords + `(.*)$`)
)

// Of recognises a statement that sets an isolation level: the level, how
// far it reaches and, for Begin, the statement without its level (BEGIN,
// START TRANSACTION READ ONLY).
func Of(sql string) (target.Level, Scope, string) {
	s := strings.TrimSpace(sql)
	if m := pgSession.FindStringSubmatch(s); m != nil {
		return level(m[1]), Session, ""
	}
	if m := setTxn.FindStringSubmatch(s); m != nil {
		switch strings.ToUpper(strings.TrimSpace(m[1])) {
		case "SESSION":
			return level(m[2]), Session, ""
		case "GLOBAL":
			return level(m[2]), Global, ""
		}
		return level(m[2]), Next, ""
	}
	if m := setVar.FindStringSubmatch(s); m != nil {
		l, err := target.ParseLevel(strings.ReplaceAll(m[4], "-", " "))
		if err != nil {
			return "", None, ""
		}
		if strings.Contains(strings.ToUpper(m[1]), "GLOBAL") {
			return l, Global, ""
		}
		return l, Session, ""
	}
	if m := beginLevel.FindStringSubmatch(s); m != nil {
		rest := strings.TrimSpace(strings.Trim(strings.TrimSpace(m[2]+" "+strings.TrimLeft(m[4], " ,")), ","))
		begin := strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
		if rest != "" {
			begin += " " + rest
		}
		return level(m[3]), Begin, begin
	}
	return "", None, ""
}

func level(words string) target.Level {
	l, _ := target.ParseLevel(strings.Join(strings.Fields(words), " "))
	return l
}

// Stmt is one statement of a connection, with where it came from.
type Stmt struct {
	SQL  string
	Line int
}

// Resolve reads one connection's statements, in their order, and returns
// what each becomes, "" for a level setting that is left out (BEGIN
// ISOLATION LEVEL X becomes BEGIN), with the one level all the connection's transactions run at (""
// when none sets one: the DBMS default). A connection whose explicit
// transactions run at two levels, or that sets the level of other
// sessions, has no such level: the error says where. Statements run in
// autocommit count only when the connection begins no transaction: a
// one-statement transaction reads as much at one level as at another.
func Resolve(conn string, stmts []Stmt) ([]string, target.Level, error) {
	out := make([]string, len(stmts))
	var session, next target.Level // "" = the DBMS default
	type use struct {
		l    target.Level
		line int
	}
	var begins, singles []use
	inTxn := false
	sinceBegin := 0 // statements since the transaction's BEGIN
	for i, s := range stmts {
		l, scope, rest := Of(s.SQL)
		switch scope {
		case Global:
			return nil, "", fmt.Errorf("line %d: %s sets the level of other sessions, which a case cannot say (it names each connection's level)", s.Line, oneLine(s.SQL))
		case Session:
			session = l
			continue
		case Next:
			// PostgreSQL's SET TRANSACTION, first in a transaction, sets
			// that transaction's level; elsewhere (MySQL) the next one's.
			if inTxn && sinceBegin == 0 {
				begins[len(begins)-1].l = l
			} else {
				next = l
			}
			continue
		case Begin:
			out[i] = rest
			begins = append(begins, use{l, s.Line})
			inTxn, next, sinceBegin = true, "", 0
			continue
		}
		sinceBegin++
		switch testcase.ControlOf(s.SQL) {
		case testcase.Begin:
			lv := session
			if next != "" {
				lv = next
			}
			begins = append(begins, use{lv, s.Line})
			inTxn, next, sinceBegin = true, "", 0
		case testcase.Commit, testcase.Rollback:
			inTxn = false
		default:
			if !inTxn {
				lv := session
				if next != "" {
					lv = next
				}
				singles = append(singles, use{lv, s.Line})
				next = ""
			}
		}
		out[i] = s.SQL
	}
	uses := begins
	if len(uses) == 0 {
		uses = singles
	}
	if len(uses) == 0 {
		return out, session, nil
	}
	for _, u := range uses[1:] {
		if u.l != uses[0].l {
			return nil, "", fmt.Errorf("%s runs transactions at two levels (%s at line %d, %s at line %d); a case gives each connection one", conn, name(uses[0].l), uses[0].line, name(u.l), u.line)
		}
	}
	return out, uses[0].l, nil
}

func name(l target.Level) string {
	if l == "" {
		return "the default level"
	}
	return string(l)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Set writes the connections' levels (lv, by connection number) into c:
// the isolation header when every connection of c has the same one,
// isolation.N headers otherwise; a level of a connection c does not use
// is left out.
func Set(c *testcase.Case, lv map[int]target.Level) {
	conns := c.Conns()
	if len(lv) == 0 {
		return
	}
	same := len(lv) == len(conns)
	for _, n := range conns {
		same = same && lv[n] == lv[conns[0]]
	}
	if same {
		c.Isolation = lv[conns[0]]
		return
	}
	c.ConnIsolation = map[int]target.Level{}
	for _, n := range conns {
		if l, ok := lv[n]; ok {
			c.ConnIsolation[n] = l
		}
	}
	if len(c.ConnIsolation) == 0 {
		c.ConnIsolation = nil
	}
}

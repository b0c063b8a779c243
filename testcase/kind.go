package testcase

import (
	"regexp"
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// Kind is what a statement is, decided once from its text when a case is
// parsed or generated (Classify) and carried with its step (Step.Kind), so
// that the executor, the oracles and the reducer read one decision instead
// of each re-reading the statement's first word.
type Kind struct {
	// Keyword is the statement's first word in upper case, without a
	// trailing semicolon ("SELECT", "XA"); "" for an empty statement.
	Keyword string
	// Control is what the statement does to its connection's transaction.
	Control Control
	// Upsert marks an INSERT that updates on a key conflict (ON CONFLICT,
	// ON DUPLICATE KEY UPDATE).
	Upsert bool
	// Changes marks a data-changing statement whose affected-row count
	// means something (target.ChangesRows): INSERT, UPDATE, DELETE,
	// REPLACE, MERGE.
	Changes bool
	// LockingRead marks a statement that names a row lock (FOR UPDATE,
	// FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE, LOCK IN SHARE MODE).
	LockingRead bool
	// CTEWrite marks a WITH whose common table expression writes
	// (PostgreSQL's data-modifying CTE): it locks the rows it changes,
	// though it returns rows as a query does (IsWrite stays by keyword).
	CTEWrite bool
	// Schema marks a statement that may create a table or change one's
	// definition: anything but a read, a write, or transaction and
	// session control (target.KeepsDefinitions).
	Schema bool
	// Of is the text the kind was decided from: a step whose SQL was
	// rewritten since (a reduction edits statements) is classified again.
	Of string
	// parse is Of's parse per dialect, made when a reader first asks
	// (Stmt); every copy of the kind shares it.
	parse *sqlast.Memo
}

// Classify decides a statement's kind from its text.
func Classify(sql string) Kind {
	k := Kind{
		Control:     ControlOf(sql),
		Changes:     target.ChangesRows(sql),
		LockingRead: lockingReadRE.MatchString(sql),
		Schema:      !target.KeepsDefinitions(sql),
		Of:          sql,
		parse:       sqlast.NewMemo(sql),
	}
	f := strings.Fields(sql)
	if len(f) == 0 {
		return k
	}
	k.Keyword = strings.ToUpper(strings.TrimSuffix(f[0], ";"))
	k.CTEWrite = k.Keyword == "WITH" && cteWriteRE.MatchString(sql)
	if k.Keyword == "INSERT" {
		up := strings.ToUpper(strings.Join(f, " "))
		k.Upsert = strings.Contains(up, " ON CONFLICT") || strings.Contains(up, " ON DUPLICATE KEY UPDATE")
	}
	return k
}

var cteWriteRE = regexp.MustCompile(`(?is)^\s*WITH\b.*\bAS\s*\(\s*(INSERT|UPDATE|DELETE)\b`)

var lockingReadRE = regexp.MustCompile(`(?i)\bFOR\s+(NO\s+KEY\s+)?UPDATE\b|\bFOR\s+(KEY\s+)?SHARE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b`)

// KindOf is the step's kind: the one carried with it, or, for a step built
// without one or edited since, the statement's kind decided now.
func KindOf(s Step) Kind { return s.Kind.For(s.SQL) }

// For is k where k was decided for sql, else sql's kind decided now: what
// carries a kind (a step, an executor event) reads it with For, so that a
// kind never outlives a rewrite of the text it was decided from.
func (k Kind) For(sql string) Kind {
	if k.Of == sql && k != (Kind{}) {
		return k
	}
	return Classify(sql)
}

// Stmt is the statement the kind was decided from (Of) parsed in dialect
// d. The parse is made the first time a reader asks for d and shared by
// every copy of the kind after (sqlast.Memo), so that the readers of a
// step — the oracles, the model, the reducer — take one parse instead of
// each parsing its text again. It is shared, also between goroutines: a
// reader that rewrites it takes a sqlast.Clone first. A kind that Classify
// did not decide parses Of now.
func (k Kind) Stmt(d sqlast.Dialect) (sqlast.Stmt, error) {
	if k.parse == nil {
		return sqlast.NewMemo(k.Of).Parse(d)
	}
	return k.parse.Parse(d)
}

// OwnStmt is Stmt as a copy of the caller's own (sqlast.Clone), for a
// reader that changes the statement it reads: the shared parse is made
// once all the same.
func (k Kind) OwnStmt(d sqlast.Dialect) (sqlast.Stmt, error) {
	st, err := k.Stmt(d)
	if err != nil {
		return nil, err
	}
	return sqlast.Clone(st), nil
}

// StmtOf is step s's statement parsed in dialect d: the parse its kind
// carries (Kind.Stmt), or, for a step built without a kind or edited
// since, one made now.
func StmtOf(s Step, d sqlast.Dialect) (sqlast.Stmt, error) { return KindOf(s).Stmt(d) }

// Signature names the statement as finding signatures do: its keyword,
// except that an upsert is an UPSERT — its conflicts are a family of bugs
// of their own, and a suppression of one must not reach plain inserts.
func (k Kind) Signature() string {
	if k.Upsert {
		return "UPSERT"
	}
	return k.Keyword
}

// IsWrite reports whether the statement writes rows.
func (k Kind) IsWrite() bool {
	switch k.Keyword {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "UPSERT":
		return true
	}
	return false
}

// IsQuery reports whether the statement is a plain query: SELECT, VALUES
// or TABLE.
func (k Kind) IsQuery() bool {
	switch k.Keyword {
	case "SELECT", "VALUES", "TABLE":
		return true
	}
	return false
}

// SignatureKind names a statement as finding signatures do (Kind.Signature).
func SignatureKind(sql string) string { return Classify(sql).Signature() }

// Package sqlast is txlab's SQL subset as a small AST: the statements and
// expressions the generator produces and the oracles instrument, rendered per
// dialect (MySQL family, PostgreSQL family, SQLite) and parsed back, so that
// print → parse → print is the identity.
package sqlast

import (
	"fmt"
	"strings"
)

// Dialect selects how the AST is rendered.
type Dialect int

// The dialects. Zero is no dialect, so a forgotten choice shows up in tests.
const (
	DialectNone Dialect = iota
	MySQL               // MySQL, MariaDB, TiDB
	Postgres            // PostgreSQL, CockroachDB
	SQLite
)

func (d Dialect) String() string {
	switch d {
	case MySQL:
		return "mysql"
	case Postgres:
		return "postgres"
	case SQLite:
		return "sqlite"
	}
	return "none"
}

// ParseDialect is the inverse of Dialect.String.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(s) {
	case "mysql", "mariadb", "tidb":
		return MySQL, nil
	case "postgres", "postgresql", "cockroach", "cockroachdb", "duckdb":
		// DuckDB's parser is PostgreSQL's.
		return Postgres, nil
	case "sqlite":
		return SQLite, nil
	}
	return DialectNone, fmt.Errorf("unknown SQL dialect %q", s)
}

// Type is a column type of the subset.
type Type int

// Column types; rendered per dialect (DOUBLE is DOUBLE PRECISION on PostgreSQL
// and REAL on SQLite, VARCHAR is TEXT on SQLite, ...).
const (
	TypeNone Type = iota
	TypeInt
	TypeDouble
	TypeDecimal // DECIMAL(10,2)
	TypeVarchar // VARCHAR(20)
	TypeBool
	TypeText // TEXT: a string without a declared length
)

// Stmt is any statement of the subset.
type Stmt interface{ stmt() }

// Expr is any scalar expression of the subset.
type Expr interface{ expr() }

// TableRef is an item of a FROM clause.
type TableRef interface{ tableRef() }

// Query is a SELECT or a set operation of SELECTs.
type Query interface{ query() }

// ---- statements ----

// ColumnDef is one column of CREATE TABLE.
type ColumnDef struct {
	Name string
	Type Type
	// Size is a VARCHAR's length or a DECIMAL's precision and scale as
	// written ("255", "12,4"); "" renders the type's default size.
	Size       string
	NotNull    bool
	PrimaryKey bool // single-column primary key
	Unique     bool
	// AutoIncrement is the MySQL family's AUTO_INCREMENT: an INSERT that
	// gives the column no value (or NULL, or 0) gets the next number.
	AutoIncrement bool
	Default       Expr // nil: none
	Check         Expr // nil: none
	// References is the column's own REFERENCES p (c) (sqlast/fk.go);
	// nil: none.
	References *ForeignKey
	// Identity, Generated: see schemafeat.go (PostgreSQL's identity
	// columns; generated columns).
	Identity  Identity
	Generated *Generated // nil: a stored column
}

// CreateTable is CREATE TABLE name (columns, constraints).
type CreateTable struct {
	Name       string
	Columns    []ColumnDef
	PrimaryKey []string   // composite primary key; nil when none or single-column
	Uniques    [][]string // table-level UNIQUE (a, b)
	Checks     []Expr     // table-level CHECK (expr)
	// Indexes are the MySQL family's KEY/INDEX (a, b) inside the table's
	// definition (a mysqldump writes its secondary indexes there).
	Indexes [][]string
	// ForeignKeys are the table-level FOREIGN KEY elements (fk.go).
	ForeignKeys []ForeignKey
	// Charset and Collate are the MySQL family's table options DEFAULT
	// CHARSET and COLLATE ("" when not given): they decide how its
	// strings compare.
	Charset, Collate string
}

// CreateIndex is CREATE [UNIQUE] INDEX name ON table (columns).
type CreateIndex struct {
	Name    string
	Table   string
	Columns []string
	Unique  bool
	// Exprs are the index's parts when one at least is an expression
	// (Columns is nil then): a ColumnRef is a plain column, anything else
	// an expression, printed in parentheses. Where is a partial index's
	// predicate (PostgreSQL, SQLite); nil when none.
	Exprs []Expr
	Where Expr
}

// Insert is INSERT INTO table [(columns)] VALUES (...), ... or INSERT ... SELECT.
// Replace renders REPLACE INTO (MySQL family). OnConflict renders
// ON CONFLICT (PostgreSQL, SQLite) or ON DUPLICATE KEY UPDATE (MySQL family).
type Insert struct {
	Table      string
	Columns    []string
	Values     [][]Expr // nil when Select is set
	Select     Query
	Replace    bool
	OnConflict *OnConflict
	// Returning are the items of RETURNING (PostgreSQL, SQLite ≥ 3.35,
	// MariaDB ≥ 10.5); nil when none.
	Returning []SelectItem
}

// OnConflict is the upsert clause. DoNothing ignores the conflicting row;
// otherwise Set updates it, where Excluded refers to the proposed row.
type OnConflict struct {
	Columns   []string // conflict target (PostgreSQL, SQLite); ignored by MySQL
	DoNothing bool
	// Ignore says DoNothing was written INSERT IGNORE (MySQL family),
	// which also turns other errors (NULL into NOT NULL, out of range)
	// into warnings, so it prints as written.
	Ignore bool
	Set    []Assignment
}

// Assignment is column = value in UPDATE SET or ON CONFLICT ... SET.
type Assignment struct {
	// Table qualifies Column in the MySQL family's multiple-table UPDATE
	// (SET t0.c = …); "" everywhere else.
	Table  string
	Column string
	Value  Expr
}

// Update is UPDATE table SET ... [WHERE ...]. A multiple-table UPDATE
// (see MultiTable) sets Tables or From.
type Update struct {
	Table string
	// Tables, set instead of Table, are the MySQL family's multiple-table
	// UPDATE's table references (UPDATE t0 JOIN t1 ON … SET t0.c = …,
	// UPDATE t0, t1 SET …): which tables it writes is in its SET.
	Tables []TableRef
	Set    []Assignment
	// From is PostgreSQL's and SQLite's UPDATE table SET … FROM others:
	// the other tables SET and WHERE read; nil when none.
	From  []TableRef
	Where Expr
	// Returning are the items of RETURNING (PostgreSQL, SQLite ≥ 3.35;
	// not the MySQL family); nil when none.
	Returning []SelectItem
}

// Delete is DELETE FROM table [WHERE ...] [RETURNING ...]. A
// multiple-table DELETE (see MultiTable) sets Targets or Using.
type Delete struct {
	Table string
	// Targets and Tables, set instead of Table, are the MySQL family's
	// multiple-table DELETE t0[, t1] FROM tables [WHERE …]: the tables
	// it deletes from and the table references it reads.
	Targets []string
	Tables  []TableRef
	// Using is PostgreSQL's DELETE FROM table USING others; nil when none.
	Using []TableRef
	Where Expr
	// Returning are the items of RETURNING (PostgreSQL, SQLite ≥ 3.35,
	// MariaDB ≥ 10.0); nil when none.
	Returning []SelectItem
}

// SelectStmt is a top-level query with optional ORDER BY, LIMIT and locking clause.
type SelectStmt struct {
	Query   Query
	OrderBy []OrderItem
	Limit   *int
	Lock    LockMode
	// ShareMode, when set, says whether a shared lock was written LOCK IN
	// SHARE MODE (true) or FOR SHARE (false). The parser sets it only for
	// the spelling that is not the dialect's usual one, so that the
	// statement prints as written (MariaDB rejects FOR SHARE, PostgreSQL
	// LOCK IN SHARE MODE); nil prints the dialect's spelling.
	ShareMode *bool
	// Wait is what the locking clause does with a row another
	// transaction holds locked: wait (the default), fail at once (NOWAIT)
	// or leave the row out (SKIP LOCKED).
	Wait WaitPolicy
}

// WaitPolicy is a locking clause's NOWAIT or SKIP LOCKED.
type WaitPolicy int

// Wait policies.
const (
	WaitDefault WaitPolicy = iota
	WaitNowait
	WaitSkipLocked
)

// LockMode is a SELECT's locking clause.
type LockMode int

// Locking clauses: FOR SHARE renders LOCK IN SHARE MODE on the MySQL family.
// LockNoKeyUpdate and LockKeyShare are PostgreSQL's weaker row locks
// (FOR NO KEY UPDATE, FOR KEY SHARE), read in its dialect only.
const (
	LockNone LockMode = iota
	LockShare
	LockUpdate
	LockNoKeyUpdate
	LockKeyShare
)

// OrderItem is one ORDER BY key.
type OrderItem struct {
	Expr Expr
	Desc bool
}

// Begin, Commit and Rollback are transaction control statements.
type (
	Begin    struct{}
	Commit   struct{}
	Rollback struct{}
)

// Savepoint is SAVEPOINT name, RollbackTo is ROLLBACK TO SAVEPOINT name
// (undo the transaction's work since the savepoint, which stays) and
// ReleaseSavepoint is RELEASE SAVEPOINT name (forget it, keep the work).
type (
	Savepoint        struct{ Name string }
	RollbackTo       struct{ Name string }
	ReleaseSavepoint struct{ Name string }
)

// ---- queries ----

// Select is SELECT [DISTINCT] items FROM from [WHERE where].
type Select struct {
	Distinct bool
	Items    []SelectItem
	From     []TableRef // comma-separated; usually one item, possibly a Join
	Where    Expr
}

// SelectItem is an output column: Star (optionally qualified by Table), or Expr AS Alias.
type SelectItem struct {
	Star  bool
	Table string // for t.* when Star
	Expr  Expr
	Alias string
}

// SetOp is left UNION [ALL] right.
type SetOp struct {
	Op    string // "UNION" or "UNION ALL"
	Left  Query
	Right Query
}

// ---- FROM items ----

// Table is a named table with an optional alias.
type Table struct {
	Name  string
	Alias string
}

// RefName is the name the statement's columns qualify t by: its alias,
// else its name.
func (t *Table) RefName() string {
	if t.Alias != "" {
		return t.Alias
	}
	return t.Name
}

// Subquery is (query) AS alias in FROM.
type Subquery struct {
	Query Query
	Alias string
}

// Join is left [INNER|LEFT|CROSS] JOIN right [ON on].
type Join struct {
	Kind  string // "JOIN", "LEFT JOIN", "CROSS JOIN"
	Left  TableRef
	Right TableRef
	On    Expr
}

// ---- expressions ----

// ColumnRef is [table.]column.
type ColumnRef struct {
	Table  string
	Column string
}

// LitKind is the kind of a literal.
type LitKind int

// Literal kinds.
const (
	LitNull LitKind = iota
	LitInt
	LitFloat // rendered as written, e.g. 2.5 or 1e3
	LitString
	LitBool
)

// Literal is a constant. Text is the value as written without quotes
// (strings unescaped; booleans TRUE/FALSE).
type Literal struct {
	Kind LitKind
	Text string
}

// Binary is L op R with op one of + - * = <> < <= > >= AND OR.
type Binary struct {
	Op string
	L  Expr
	R  Expr
}

// And is l AND r, or the other where one of them is nil (a WHERE the
// statement does not have).
func And(l, r Expr) Expr {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	}
	return &Binary{Op: "AND", L: l, R: r}
}

// Unary is NOT x or -x.
type Unary struct {
	Op string // "NOT" or "-"
	X  Expr
}

// IsNull is x IS [NOT] NULL.
type IsNull struct {
	X   Expr
	Not bool
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	X, Lo, Hi Expr
	Not       bool
}

// In is x [NOT] IN (list) or x [NOT] IN (subquery).
type In struct {
	X    Expr
	List []Expr
	Sub  Query
	Not  bool
}

// Exists is [NOT] EXISTS (subquery).
type Exists struct {
	Sub Query
	Not bool
}

// ScalarSubquery is (subquery) used as a value.
type ScalarSubquery struct {
	Sub Query
}

// Func is a call of a deterministic function (ABS, COALESCE, LOWER, UPPER, ...)
// or an aggregate (COUNT, SUM, MIN, MAX). Star is COUNT(*).
type Func struct {
	Name string
	Args []Expr
	Star bool
}

// Excluded is the proposed row's column inside ON CONFLICT ... SET
// (EXCLUDED.c on PostgreSQL and SQLite, VALUES(c) on the MySQL family).
type Excluded struct {
	Column string
}

// Concat is string concatenation L || R: CONCAT(L, R) on the MySQL family
// (where || means OR by default), (L || R) elsewhere. The instrumenters use
// it to append to a text column.
type Concat struct {
	L, R Expr
}

// Var is a MySQL user variable, @Name, or with Assign the assignment
// @Name := Assign, whose value is Assign's (always printed in
// parentheses). IsoRel uses one to collect the rows an UPDATE matched.
type Var struct {
	Name   string
	Assign Expr
}

// Case is CASE [Operand] WHEN … THEN … [ELSE Else] END: with an Operand,
// each When is compared with it, without, each is a condition.
type Case struct {
	Operand Expr
	Whens   []When
	Else    Expr
}

// When is one WHEN … THEN … arm of a Case.
type When struct {
	Cond, Result Expr
}

// Raw is SQL text outside the subset, rendered verbatim. Parsers never
// produce it; instrumenters and generators may carry it through.
type Raw struct {
	SQL string
}

func (*CreateTable) stmt() {}
func (*CreateIndex) stmt() {}
func (*Insert) stmt()      {}
func (*Update) stmt()      {}
func (*Delete) stmt()      {}
func (*SelectStmt) stmt()  {}
func (*Begin) stmt()       {}
func (*Commit) stmt()      {}
func (*Rollback) stmt()    {}
func (*Raw) stmt()         {}

func (*CreateSequence) stmt() {}

func (*Savepoint) stmt()        {}
func (*RollbackTo) stmt()       {}
func (*ReleaseSavepoint) stmt() {}

func (*Select) query() {}
func (*SetOp) query()  {}

func (*Table) tableRef()    {}
func (*Subquery) tableRef() {}
func (*Join) tableRef()     {}

func (*ColumnRef) expr()      {}
func (*Literal) expr()        {}
func (*Binary) expr()         {}
func (*Unary) expr()          {}
func (*IsNull) expr()         {}
func (*Between) expr()        {}
func (*In) expr()             {}
func (*Exists) expr()         {}
func (*ScalarSubquery) expr() {}
func (*Func) expr()           {}
func (*Excluded) expr()       {}
func (*Concat) expr()         {}
func (*Raw) expr()            {}
func (*Var) expr()            {}
func (*Case) expr()           {}

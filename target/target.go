// Package target is the small interface txlab uses to talk to a DBMS: sessions,
// isolation levels, statements returning rows as strings, classified errors,
// lock-wait introspection, the state of txlab's own tables and the server version.
//
// Like database/sql's driver package it holds no policy: each DBMS family has an
// adapter in a sub-package (sqlite, mysql, postgres) and the executor above it
// decides what to run and when. DBMS differences live in the adapters only.
package target

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target/txn"
)

// Level is an isolation level (package txn, where the rules, which need no
// session, find it too).
type Level = txn.Level

// The isolation levels txlab knows. A target supports a subset (Target.Levels).
const (
	ReadUncommitted = txn.ReadUncommitted
	ReadCommitted   = txn.ReadCommitted
	RepeatableRead  = txn.RepeatableRead
	Snapshot        = txn.Snapshot
	Serializable    = txn.Serializable
)

// AllLevels lists every level from weakest to strongest.
var AllLevels = txn.AllLevels

// ParseLevel accepts the long names and the abbreviations RU, RC, RR, SI, SER in any case.
func ParseLevel(s string) (Level, error) { return txn.ParseLevel(s) }

// UnsupportedLevelError is returned by Session.SetIsolation for a level the DBMS lacks.
type UnsupportedLevelError struct {
	DBMS      string
	Level     Level
	Supported []Level
}

func (e *UnsupportedLevelError) Error() string {
	names := make([]string, len(e.Supported))
	for i, l := range e.Supported {
		names[i] = string(l)
	}
	return fmt.Sprintf("%s does not support isolation level %s (supported: %s)", e.DBMS, e.Level, strings.Join(names, ", "))
}

// CheckLevel returns an *UnsupportedLevelError unless l is in supported.
func CheckLevel(dbms string, l Level, supported []Level) error {
	for _, s := range supported {
		if s == l {
			return nil
		}
	}
	return &UnsupportedLevelError{DBMS: dbms, Level: l, Supported: supported}
}

// ParseLevels reads a comma-separated list of levels, or "all" (every
// level the target supports: supported); "" is none (the DBMS default).
// A level dbms lacks is refused here: a campaign would otherwise skip it
// and end with nothing run and nothing said.
func ParseLevels(s, dbms string, supported []Level) ([]Level, error) {
	if s == "" {
		return nil, nil
	}
	if strings.EqualFold(s, "all") {
		return supported, nil
	}
	levels, err := ParseLevelNames(s)
	for _, l := range levels {
		if err == nil {
			err = CheckLevel(dbms, l, supported)
		}
	}
	if err != nil {
		return nil, err
	}
	return levels, nil
}

// ParseLevelNames reads a comma-separated list of levels without a target
// to check them on (several targets, each with levels of its own): nil
// for "" and for all, which each target reads as every level it has.
func ParseLevelNames(s string) ([]Level, error) {
	if s == "" || strings.EqualFold(s, "all") {
		return nil, nil
	}
	var out []Level
	for _, part := range strings.Split(s, ",") {
		l, err := ParseLevel(part)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Value is one column value as text; Null marks SQL NULL. It marshals to a
// JSON string or null.
type Value struct {
	S    string
	Null bool
}

// Str makes a non-NULL value.
func Str(s string) Value { return Value{S: s} }

// NullValue is SQL NULL.
var NullValue = Value{Null: true}

func (v Value) String() string {
	if v.Null {
		return "NULL"
	}
	return v.S
}

// MarshalJSON writes a string or null.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Null {
		return []byte("null"), nil
	}
	return json.Marshal(v.S)
}

// UnmarshalJSON reads a string or null.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = NullValue
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*v = Str(s)
	return nil
}

// Row is one result row.
type Row []Value

// Compare orders rows column by column: NULL first, then numbers by value
// (so 2 comes before 10), then other values by text. Numbers equal in value
// but spelled differently (1 and 1.0) are ordered by text, so the order
// stays total.
func (r Row) Compare(o Row) int {
	for i := 0; i < len(r) && i < len(o); i++ {
		a, b := r[i], o[i]
		switch {
		case a.Null && b.Null:
			continue
		case a.Null:
			return -1
		case b.Null:
			return 1
		}
		if c := compareValues(a.S, b.S); c != 0 {
			return c
		}
	}
	return len(r) - len(o)
}

func compareValues(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	switch {
	case errA == nil && errB == nil:
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// SortRows sorts rows into the canonical order used for state dumps.
func SortRows(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Compare(rows[j]) < 0 })
}

// Result is what a statement returned. Rows is nil for statements that return
// no result set (DML without RETURNING, BEGIN, ...).
type Result struct {
	Columns  []string
	Rows     []Row
	Affected int64 // rows affected by DML, -1 when unknown
	// Truncated counts the rows the statement returned past what txlab
	// keeps (Limits): read and counted, not kept; Rows is then the
	// result's first rows. 0 when Rows is the whole result.
	Truncated int64
}

// ErrorClass is the DBMS-independent class of a statement error (package
// txn).
type ErrorClass = txn.ErrorClass

// Error classes. Oracles reason about these, never about DBMS error codes.
const (
	ClassDeadlock      = txn.ClassDeadlock
	ClassSerialization = txn.ClassSerialization
	ClassLockTimeout   = txn.ClassLockTimeout
	ClassDuplicateKey  = txn.ClassDuplicateKey
	ClassConstraint    = txn.ClassConstraint
	ClassSyntax        = txn.ClassSyntax
	ClassNoSuchTable   = txn.ClassNoSuchTable
	ClassExists        = txn.ClassExists
	ClassAborted       = txn.ClassAborted
	ClassBusy          = txn.ClassBusy
	ClassData          = txn.ClassData
	ClassPrivilege     = txn.ClassPrivilege
	ClassConnection    = txn.ClassConnection
	ClassOther         = txn.ClassOther
)

// Error is a classified DBMS error, as returned by Session.Exec.
type Error struct {
	Class   ErrorClass `json:"class"`
	Code    string     `json:"code"`
	Message string     `json:"message"`
	// RolledBack is true when the DBMS rolled back the whole transaction by
	// itself or left it in a state where only ROLLBACK is accepted; the
	// executor then sends ROLLBACK (harmless if already rolled back) and skips
	// the transaction's remaining statements. A failed COMMIT ends its
	// transaction uncommitted on every target: RolledBack says the DBMS
	// ended it (PostgreSQL, TiDB); without it the executor rolls it back
	// (SQLite keeps the transaction open after COMMIT fails a deferred
	// foreign key).
	RolledBack bool `json:"rolled_back,omitempty"`
	// Oversize says the server sent a message (a row, an error) larger
	// than txlab keeps of a result (Limits.Bytes): the adapter refused it
	// unread and closed the connection, and the case is not judged.
	Oversize bool `json:"oversize,omitempty"`
}

func (e *Error) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s error %s: %s", e.Class, e.Code, e.Message)
	}
	return fmt.Sprintf("%s error: %s", e.Class, e.Message)
}

// AsError extracts a classified *Error from err, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ErrNoIntrospection is returned by Target.Waiting when the DBMS cannot tell
// which sessions wait on a lock; the executor then falls back to a timeout.
var ErrNoIntrospection = errors.New("lock-wait introspection not supported")

// Info describes a connected target.
type Info struct {
	DBMS    string         `json:"dbms"`    // mariadb, mysql, tidb, postgres, cockroach, sqlite
	Version string         `json:"version"` // server version string
	Dialect sqlast.Dialect `json:"-"`       // how generated SQL is rendered
	Schema  string         `json:"-"`       // txlab's own database/schema
	// Returning says DELETE … RETURNING returns the deleted rows and
	// INSERT … RETURNING the inserted or upserted ones (MariaDB ≥ 10.5,
	// PostgreSQL, SQLite ≥ 3.35; not MySQL or TiDB).
	Returning bool `json:"-"`
	// NoSharedLocks says the DBMS rejects SELECT … FOR SHARE and LOCK IN
	// SHARE MODE (TiDB, unless tidb_enable_noop_functions or
	// tidb_enable_shared_lock_promotion is on); generated cases carry none.
	NoSharedLocks bool `json:"-"`
	// NoLockingReads says the DBMS rejects every locking read (SELECT …
	// FOR UPDATE too: DuckDB); generated cases carry none.
	NoLockingReads bool `json:"-"`
	// Features are the SQL features (package features' names) this DBMS
	// and version support beyond the base subset, so the generator may
	// use them; nil: none (the base subset only).
	Features []string `json:"-"`
}

// State is a dump of txlab's tables: table name → rows in canonical order.
type State map[string][]Row

// Tables returns the table names in sorted order.
func (s State) Tables() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Target is one database server (or file) reached through one adapter.
// All methods may be called concurrently with Session methods.
type Target interface {
	// Info reports the DBMS family, version and dialect.
	Info() Info
	// Levels lists the isolation levels the DBMS supports, weakest first.
	Levels() []Level
	// DefaultLevel is the DBMS's default isolation level.
	DefaultLevel() Level
	// Open starts a new session in txlab's schema, in autocommit mode.
	Open(ctx context.Context) (Session, error)
	// Waiting reports which of the given sessions (by Session.ID) are
	// currently waiting on a lock. It returns ErrNoIntrospection when the DBMS
	// cannot tell.
	Waiting(ctx context.Context, ids []string) (map[string]bool, error)
	// Reset drops every table txlab created in its schema, so the next case
	// starts on an empty database. It fails with a clear message, touching
	// nothing, when the schema holds tables txlab did not create.
	Reset(ctx context.Context) error
	// Adopt records as txlab's own the tables named in created (the names
	// scope.Created finds in the statements txlab ran) that now exist in its
	// schema; it never records a table it did not create.
	Adopt(ctx context.Context, created []string) error
	// Dump returns every txlab table with its rows in canonical order.
	Dump(ctx context.Context) (State, error)
	// Close releases the target's own connections.
	Close() error
}

// Wrapper is implemented by a target that wraps another (the target of a
// throwaway server, whose Close also stops the server). The optional
// interfaces below are looked up through it with As.
type Wrapper interface {
	Unwrap() Target
}

// As finds the optional interface I (Emptier, Sibler, SettingsReader) on
// t or on a target t wraps.
func As[I any](t Target) (I, bool) {
	for t != nil {
		if i, ok := t.(I); ok {
			return i, true
		}
		w, ok := t.(Wrapper)
		if !ok {
			break
		}
		t = w.Unwrap()
	}
	var zero I
	return zero, false
}

// Sibler is implemented by targets that can open the same server in
// another schema of txlab's, named after theirs (SCHEMA_suffix), with the
// same safety rules. An oracle whose runs create other tables than the
// plain run (IsoRel's hidden columns) works there, so that neither run
// drops and re-creates the other's tables.
type Sibler interface {
	Sibling(ctx context.Context, suffix string) (Target, error)
}

// ErrSchemaInUse is wrapped by Open's error when another txlab run holds
// the schema's lock.
var ErrSchemaInUse = errors.New("in use by another txlab run")

// LeftoverSweeper is implemented by targets whose runs create an account
// (a role) per schema. A run killed with kill -9 leaves its workers' and
// oracles' sibling schemas (SCHEMA_w2, SCHEMA_isorel, …) with their case
// accounts, which no later run in SCHEMA alone would open again.
// SweepLeftovers finds each sibling whose case account is still there and
// whose lock no live run holds, opens and closes it as a run would (the
// account, its sessions and, on PostgreSQL, what it owns go), and returns
// the schemas it cleaned.
type LeftoverSweeper interface {
	SweepLeftovers(ctx context.Context) ([]string, error)
}

// Emptier is implemented by targets (through Owned) that can empty txlab's
// tables in place; the executor then reuses a case's tables when the next
// setup creates the same ones (on a bench of its own: executor.Bench).
type Emptier interface {
	// CanEmpty reports whether Empty works here.
	CanEmpty() bool
	// Empty empties every table txlab created, refusing like Reset, and
	// returns their names, sorted.
	Empty(ctx context.Context) ([]string, error)
	// Tables returns the tables txlab created that exist, sorted.
	Tables(ctx context.Context) ([]string, error)
}

// Session is one connection, bound to one server-side session.
type Session interface {
	// ID identifies the server-side session for Target.Waiting.
	ID() string
	// SetIsolation sets the isolation level of the session's next transactions.
	SetIsolation(ctx context.Context, l Level) error
	// Exec runs one statement. DBMS errors are returned as *Error.
	Exec(ctx context.Context, sql string) (*Result, error)
	// Close ends the session; an open transaction is rolled back.
	Close() error
}

// SettingsReader is implemented by targets that can report server settings.
// The semantics table depends on some of them (MariaDB's
// innodb_snapshot_isolation changes what repeatable read promises), and
// reading them from the server, rather than trusting the command line, keeps
// verdicts right on servers txlab did not start.
type SettingsReader interface {
	// Settings returns the current value of each named setting the server
	// knows, as the server displays it (e.g. "ON"); unknown names are
	// left out, not an error.
	Settings(ctx context.Context, names []string) (map[string]string, error)
}

// QuickDeadlocks is implemented by sessions of a DBMS that looks for
// deadlocks only after a lock wait has lasted a while (PostgreSQL's
// deadlock_timeout, 1 s by default). Free-running workloads, where
// deadlocks are frequent and their timing is not part of any replay, call it
// so a deadlock costs milliseconds instead of stalling every session behind
// it. Without the privilege to change it, the server's value stays and
// QuickDeadlocks returns nil.
type QuickDeadlocks interface {
	QuickDeadlocks(ctx context.Context) error
}

// TempTables is implemented by sessions that can drop temporary tables they
// created (the model's private copies of a case's tables, which shadow the
// real ones by name) with a statement that can never reach a permanent
// table of the same name.
type TempTables interface {
	DropTemporary(ctx context.Context, names []string) error
}

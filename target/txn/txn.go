// Package txn holds the small value types of transactions that both the
// sessions (package target) and the rules of each DBMS (package
// semantics/rules) speak of: isolation levels and the classes of statement
// errors. It imports nothing of txlab, so the rules, pure data, need not
// import the runtime that talks to a DBMS.
package txn

import (
	"fmt"
	"strings"
)

// Level is an isolation level, spelled the way case files spell it.
type Level string

// The isolation levels txlab knows. A DBMS supports a subset
// (target.Target.Levels).
const (
	ReadUncommitted Level = "read-uncommitted"
	ReadCommitted   Level = "read-committed"
	RepeatableRead  Level = "repeatable-read"
	Snapshot        Level = "snapshot"
	Serializable    Level = "serializable"
)

// AllLevels lists every level from weakest to strongest.
var AllLevels = []Level{ReadUncommitted, ReadCommitted, RepeatableRead, Snapshot, Serializable}

// ParseLevel accepts the long names and the abbreviations RU, RC, RR, SI, SER in any case.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read-uncommitted", "read uncommitted", "ru":
		return ReadUncommitted, nil
	case "read-committed", "read committed", "rc":
		return ReadCommitted, nil
	case "repeatable-read", "repeatable read", "rr":
		return RepeatableRead, nil
	case "snapshot", "si", "snapshot-isolation":
		return Snapshot, nil
	case "serializable", "ser":
		return Serializable, nil
	}
	return "", fmt.Errorf("unknown isolation level %q (want read-uncommitted, read-committed, repeatable-read, snapshot or serializable)", s)
}

// Abbrev returns the short name (RU, RC, RR, SI, SER).
func (l Level) Abbrev() string {
	switch l {
	case ReadUncommitted:
		return "RU"
	case ReadCommitted:
		return "RC"
	case RepeatableRead:
		return "RR"
	case Snapshot:
		return "SI"
	case Serializable:
		return "SER"
	}
	return string(l)
}

// ErrorClass is the DBMS-independent class of a statement error.
type ErrorClass string

// Error classes. Oracles reason about these, never about DBMS error codes.
const (
	ClassDeadlock      ErrorClass = "deadlock"       // chosen as a deadlock victim
	ClassSerialization ErrorClass = "serialization"  // serialization failure / write conflict
	ClassLockTimeout   ErrorClass = "lock-timeout"   // lock wait timed out
	ClassDuplicateKey  ErrorClass = "duplicate-key"  // unique or primary key violation
	ClassConstraint    ErrorClass = "constraint"     // NOT NULL, CHECK, foreign key, ...
	ClassSyntax        ErrorClass = "syntax"         // syntax or semantic error: the statement is invalid
	ClassNoSuchTable   ErrorClass = "no-such-table"  // the table does not exist (now): a state, not an invalid statement
	ClassExists        ErrorClass = "already-exists" // the table already exists (now): a state, not an invalid statement
	ClassAborted       ErrorClass = "aborted"        // the transaction is already aborted (PostgreSQL 25P02)
	ClassBusy          ErrorClass = "busy"           // SQLite busy: the statement would have to wait for a lock
	ClassData          ErrorClass = "data"           // data exception: overflow, division by zero, bad cast
	ClassPrivilege     ErrorClass = "privilege"      // the account may not do this: a refusal, not an invalid statement
	ClassConnection    ErrorClass = "connection"     // the connection broke
	ClassOther         ErrorClass = "other"          // anything else
)

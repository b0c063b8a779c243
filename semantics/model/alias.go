package model

import (
	"github.com/txlab/txlab/semantics/rules"
	"github.com/txlab/txlab/target"
)

// The rules the engine replays are package rules' data; these names keep
// them where the engine's callers have always found them.

// Kind is what a statement does, as far as the model cares (rules.Kind).
type Kind = rules.Kind

// Statement kinds.
const (
	KindSelect       = rules.KindSelect
	KindSelectShare  = rules.KindSelectShare
	KindSelectUpdate = rules.KindSelectUpdate
	KindUpdate       = rules.KindUpdate
	KindDelete       = rules.KindDelete
	KindInsert       = rules.KindInsert
	KindInsertSelect = rules.KindInsertSelect
	KindUpsert       = rules.KindUpsert
	KindMerge        = rules.KindMerge
)

// Read is how a statement picks the version of a row it sees (rules.Read).
type Read = rules.Read

// Read modes.
const (
	SnapStatement = rules.SnapStatement
	SnapTxn       = rules.SnapTxn
	Current       = rules.Current
	Dirty         = rules.Dirty
	Recheck       = rules.Recheck
)

// SnapshotAt says when a transaction-level snapshot is taken
// (rules.SnapshotAt).
type SnapshotAt = rules.SnapshotAt

// Snapshot points.
const (
	FirstStatement      = rules.FirstStatement
	FirstConsistentRead = rules.FirstConsistentRead
	AtBegin             = rules.AtBegin
)

// ForeignKeys is whose foreign-key checks and actions the engine follows
// (rules.ForeignKeys).
type ForeignKeys = rules.ForeignKeys

// Foreign-key models.
const (
	FKNone     = rules.FKNone
	FKInnoDB   = rules.FKInnoDB
	FKPostgres = rules.FKPostgres
	FKSQLite   = rules.FKSQLite
)

// SavepointLocks is what ROLLBACK TO SAVEPOINT does with the row locks
// taken after the savepoint (rules.SavepointLocks).
type SavepointLocks = rules.SavepointLocks

// What ROLLBACK TO SAVEPOINT does with the locks.
const (
	SavepointReleases        = rules.SavepointReleases
	SavepointKeeps           = rules.SavepointKeeps
	SavepointKeepsButInserts = rules.SavepointKeepsButInserts
)

// MechanismKind says how an oracle can test whether a mechanism explains
// what it saw (rules.MechanismKind).
type MechanismKind = rules.MechanismKind

// Mechanism kinds.
const (
	SnapshotPredicate  = rules.SnapshotPredicate
	SemiConsistentRead = rules.SemiConsistentRead
)

// TiDB's transaction modes.
const (
	TiDBPessimistic = rules.TiDBPessimistic
	TiDBOptimistic  = rules.TiDBOptimistic
)

type (
	// Variation is a documented way a DBMS departs from the plain view
	// rules (rules.Variation).
	Variation = rules.Variation
	// Rules is the model of one DBMS family at one level (rules.Rules).
	Rules = rules.Rules
	// Mechanism is a documented way a DBMS may differ from the
	// first-commit-first serial order (rules.Mechanism).
	Mechanism = rules.Mechanism
	// Promised is what a DBMS promises at a level (rules.Promised).
	Promised = rules.Promised
	// Joins is how a write across tables reads the tables it joins
	// (rules.Joins).
	Joins = rules.Joins
	// Merge is how a MERGE writes its target (rules.Merge).
	Merge = rules.Merge
)

// Docs says where each DBMS family documents its isolation levels
// (rules.Docs).
var Docs = rules.Docs

// Lookup returns the rules for dbms at level under settings (rules.Lookup).
func Lookup(dbms string, level target.Level, settings map[string]string) Rules {
	return rules.Lookup(dbms, level, settings)
}

// LookupPromise returns what dbms promises at level under settings
// (rules.LookupPromise).
func LookupPromise(dbms string, level target.Level, settings map[string]string) Promised {
	return rules.LookupPromise(dbms, level, settings)
}

// Setting is the one reading of a server setting (rules.Setting).
func Setting(settings map[string]string, name string) (v string, ok bool) {
	return rules.Setting(settings, name)
}

// SettingNames lists the server settings some row of the table depends on
// (rules.SettingNames).
func SettingNames() []string { return rules.SettingNames() }

// ViewsOnly reports whether the setting changes only the statement views
// (rules.ViewsOnly).
func ViewsOnly(name string) bool { return rules.ViewsOnly(name) }

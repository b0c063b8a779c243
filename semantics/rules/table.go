package rules

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/txlab/txlab/target/txn"
	"github.com/txlab/txlab/verdict"
)

// This file is txlab's one table of DBMS semantics. Each row applies to
// some DBMS families, levels, transaction mode and server setting, names
// its source, and sets two things: the promise (Promised: the anomaly
// classes the level forbids, its serial-order rules and the documented
// mechanisms WSS tests), which package semantics reads and judges with,
// and the statement views (Rules: how each statement kind reads, locks and
// conflicts, and the variations and known defects with their verdicts),
// which the Engine replays. Rows apply in order, later ones adding to or
// overriding earlier ones. Whether a setting holds is decided in one place
// (Setting).

// MechanismKind says how an oracle can test whether a mechanism explains
// what it saw. Each kind has one test, implemented by the oracle that uses it.
type MechanismKind string

// Mechanism kinds.
const (
	// SnapshotPredicate: a write evaluates its WHERE clause on a snapshot
	// taken before a concurrent writer committed, so it misses rows that
	// writer inserted (or, at read committed, changed into its range). The
	// test: the serial order that runs the write's transaction before that
	// concurrent writer reproduces the state.
	SnapshotPredicate MechanismKind = "snapshot-predicate"
	// SemiConsistentRead: an UPDATE that finds a row locked by a concurrent
	// transaction evaluates its WHERE clause on the row's latest committed
	// version and skips the row without waiting when that version does not
	// match, even if the locking transaction's version would. The test: the
	// UPDATE did not wait; a concurrent transaction held uncommitted
	// UPDATE/DELETE changes (and no uncommitted inserts, which have no
	// committed version: MDEV-30835) on its table; the difference lies in that
	// table; and the UPDATE changed exactly as many rows as it does when run
	// on the committed state of its start (plus its own transaction's
	// earlier statements), i.e. it skipped no row whose committed version
	// matched.
	SemiConsistentRead MechanismKind = "semi-consistent-read"
)

// Mechanism is one documented way a DBMS may legitimately differ from the
// first-commit-first serial order.
type Mechanism struct {
	Kind MechanismKind `json:"kind"`
	Rule verdict.Rule  `json:"rule"`
	// Writers lists the statement kinds (first keyword, upper case) of the
	// concurrent writer whose effect the mechanism may hide.
	Writers []string `json:"writers,omitempty"`
	// WriterAfter restricts the mechanism to a concurrent write that
	// completed after the hiding write started: a lock-based DBMS that skips
	// gap locks misses later inserts, but must wait for earlier uncommitted
	// ones (missing those is MDEV-30835).
	WriterAfter bool `json:"writer_after,omitempty"`
	// Statement says the mechanism acts per statement (read committed takes
	// a fresh view for every statement): its test also moves a single write
	// statement, not only its whole transaction, before the concurrent
	// writer, in the statement-level serial schedule.
	Statement bool `json:"statement,omitempty"`
}

// Promised is the part of the table package semantics reads: what a DBMS
// promises at a level (semantics.Promise is made of it).
type Promised struct {
	// Forbidden lists the anomaly classes the level forbids, by their
	// semantics.Anomaly names.
	Forbidden []string
	// Serializable: the level promises equivalence to some serial order.
	Serializable bool
	// AnySerialOrder is the rule that makes a result reproduced by some
	// other serial order allowed.
	AnySerialOrder *verdict.Rule
	// ReadsAnyOrder: reads must match some serial order, not the commit
	// order (PostgreSQL SSI, SQLite WAL).
	ReadsAnyOrder *verdict.Rule
	// WSS lists the documented mechanisms that explain a write-specific
	// serializability difference at this level.
	WSS []Mechanism
}

// row is one line of the table.
type row struct {
	dbms   []string    // target.Info().DBMS values; every DBMS when empty
	levels []txn.Level // every level when empty
	mode   string      // the transaction mode the row is of; "" for every mode
	// when is the setting condition, "name=value" or "name!=value" (see
	// Setting); "" for always.
	when    string
	source  string
	promise func(*Promised)
	views   func(*Rules)
}

// modes are the transaction modes of the DBMS families that have several:
// the setting that picks a session's mode, the modes, and the default
// (which a single autocommit statement follows).
var modes = map[string]struct {
	setting string
	names   []string
}{
	"tidb": {setting: "tidb_txn_mode", names: []string{TiDBPessimistic, TiDBOptimistic}},
}

// derived are settings read out of another one: TiDB's storage is named in
// its configuration (tidb_config, JSON).
var derived = map[string]struct {
	from  string
	value func(string) string
}{
	"tidb_store": {from: "tidb_config", value: tidbStore},
}

// Setting is the one reading of a server setting (name → value as the
// server or --set gave it): booleans in any of their spellings read as ON
// or OFF, other values trimmed; a derived setting (tidb_store) is read out
// of the one it lives in. ok is false when the setting is absent.
func Setting(settings map[string]string, name string) (v string, ok bool) {
	if d, isDerived := derived[name]; isDerived {
		raw, ok := settings[d.from]
		return d.value(raw), ok
	}
	raw, ok := settings[name]
	v = strings.TrimSpace(raw)
	switch strings.ToLower(v) {
	case "1", "on", "true", "yes":
		return "ON", ok
	case "0", "off", "false", "no":
		return "OFF", ok
	}
	return v, ok
}

// holds reports whether a row's setting condition holds; values compare
// case-insensitively.
func holds(when string, settings map[string]string) bool {
	if when == "" {
		return true
	}
	if name, want, ok := strings.Cut(when, "!="); ok {
		return !holds(name+"="+want, settings)
	}
	name, want, _ := strings.Cut(when, "=")
	v, ok := Setting(settings, name)
	return ok && strings.EqualFold(v, want)
}

// sessionMode is the transaction mode a session of dbms runs in under
// settings ("" for a DBMS with one mode): the mode its setting names, else
// the first, the default.
func sessionMode(dbms string, settings map[string]string) string {
	m, ok := modes[dbms]
	if !ok {
		return ""
	}
	v, _ := Setting(settings, m.setting)
	for _, name := range m.names {
		if strings.EqualFold(v, name) {
			return name
		}
	}
	return m.names[0]
}

// rows are the rows of the table that apply to dbms at level in mode under
// settings, in order.
func rows(dbms string, level txn.Level, mode string, settings map[string]string) []row {
	var out []row
	for _, r := range table {
		if len(r.dbms) > 0 && !slices.Contains(r.dbms, dbms) ||
			len(r.levels) > 0 && !slices.Contains(r.levels, level) ||
			r.mode != "" && r.mode != mode ||
			!holds(r.when, settings) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// LookupPromise returns what dbms promises at level under settings.
func LookupPromise(dbms string, level txn.Level, settings map[string]string) Promised {
	var p Promised
	for _, r := range rows(dbms, level, sessionMode(dbms, settings), settings) {
		if r.promise != nil {
			r.promise(&p)
		}
	}
	return p
}

// Lookup returns the rules for dbms (a target.Info().DBMS value) at level
// under the given server settings: those of the session's transaction
// mode, with every mode's rules in Modes where the DBMS has several.
// Known is false when no row makes them known.
func Lookup(dbms string, level txn.Level, settings map[string]string) Rules {
	views := func(mode string) Rules {
		r := Rules{DBMS: dbms, Level: level, Mode: mode}
		for _, row := range rows(dbms, level, mode, settings) {
			if row.views != nil {
				row.views(&r)
			}
		}
		return r
	}
	m, ok := modes[dbms]
	if !ok {
		return views("")
	}
	all := map[string]*Rules{}
	for _, name := range m.names {
		r := views(name)
		all[name] = &r
	}
	r := *all[sessionMode(dbms, settings)]
	r.Modes = all
	r.Autocommit = m.names[0]
	return r
}

// SettingNames lists the server settings some row of the table depends on.
func SettingNames() []string {
	var names []string
	add := func(name string) {
		if d, ok := derived[name]; ok {
			name = d.from
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, r := range table {
		if r.when != "" {
			name, _, _ := strings.Cut(strings.Replace(r.when, "!=", "=", 1), "=")
			add(name)
		}
	}
	for _, dbms := range slices.Sorted(func(yield func(string) bool) {
		for k := range modes {
			if !yield(k) {
				return
			}
		}
	}) {
		add(modes[dbms].setting)
	}
	return names
}

// ViewsOnly reports whether the setting changes only the statement views,
// never a promise: a rule of the promise then does not name it.
func ViewsOnly(name string) bool {
	views := false
	for _, r := range table {
		if r.when == "" {
			continue
		}
		n, _, _ := strings.Cut(strings.Replace(r.when, "!=", "=", 1), "=")
		if d, ok := derived[n]; ok {
			n = d.from
		}
		if n != name {
			continue
		}
		if r.promise != nil {
			return false
		}
		views = true
	}
	return views
}

// tidbStore is the storage a TiDB runs on ("unistore", "tikv"), read from
// its tidb_config variable (its configuration as JSON); "" when unknown.
func tidbStore(config string) string {
	var c struct {
		Store string `json:"store"`
	}
	if json.Unmarshal([]byte(config), &c) != nil {
		return ""
	}
	return c.Store
}

// readsOf is every statement kind reading with rd.
func readsOf(rd Read) map[Kind]Read {
	m := map[Kind]Read{}
	for k := KindSelect; k <= KindUpsert; k++ {
		m[k] = rd
	}
	return m
}

func forbid(as ...string) func(*Promised) {
	return func(p *Promised) {
		for _, a := range as {
			if !slices.Contains(p.Forbidden, a) {
				p.Forbidden = append(p.Forbidden, a)
			}
		}
	}
}

func mechanisms(ms ...Mechanism) func(*Promised) {
	return func(p *Promised) { p.WSS = append(p.WSS, ms...) }
}

func known(r *Rules) { r.Known = true }

// The anomaly classes the rows forbid (semantics.Anomaly names).
var (
	pl2 = []string{"G0", "G1a", "G1b", "G1c"}
	si  = []string{"G0", "G1a", "G1b", "G1c", "lost-update", "G-single", "G-nonadjacent", "G-single-predicate", "G-nonadjacent-predicate"}
)

var (
	anySerialOrder = verdict.Rule{
		Name:   "serializable-any-order",
		Text:   "serializable promises equivalence to some serial order, not necessarily the commit order",
		Source: "SQL standard; Adya PL-3",
	}
	pgSSIReads = verdict.Rule{
		Name:   "postgres-ssi-read-order",
		Text:   "PostgreSQL serializable (SSI) may order a reader before a writer that committed first",
		Source: "PostgreSQL docs 13.2.3; WriteCheck footnote 4",
	}
	sqliteWALReads = verdict.Rule{
		Name:   "sqlite-wal-read-snapshot",
		Text:   "SQLite in WAL mode: a transaction reads the snapshot of its first read, so it is ordered before writers that commit after that read",
		Source: "SQLite docs: Isolation In SQLite, WAL mode",
	}
	innodbRCGaps = Mechanism{
		Kind: SnapshotPredicate,
		Rule: verdict.Rule{
			Name:   "innodb-rc-no-gap-locks",
			Text:   "at read committed InnoDB takes no gap locks: a row a concurrent transaction inserts (or moves) into a range after a write scanned it is neither blocked nor seen by that write",
			Source: "MariaDB/MySQL docs: InnoDB transaction isolation levels, READ COMMITTED",
		},
		Writers:     []string{"INSERT", "REPLACE", "UPDATE"},
		WriterAfter: true,
		Statement:   true,
	}
	innodbSemiConsistent = Mechanism{
		Kind: SemiConsistentRead,
		Rule: verdict.Rule{
			Name:   "innodb-semi-consistent-read",
			Text:   "at read committed an InnoDB UPDATE that meets a row locked by another transaction evaluates its WHERE on the latest committed version and skips the row without waiting if that version does not match",
			Source: "MySQL/MariaDB docs: InnoDB transaction isolation levels (READ COMMITTED, semi-consistent read); MDEV-26687 (by design); WriteCheck §6.4.1 Listing 5",
		},
		Writers: []string{"UPDATE", "DELETE"},
	}
	pgRCSnapshot = Mechanism{
		Kind: SnapshotPredicate,
		Rule: verdict.Rule{
			Name:   "postgres-rc-statement-snapshot",
			Text:   "a write's predicate is evaluated on a snapshot that does not include a concurrent uncommitted insert (or a row a concurrent update moved into its range)",
			Source: "PostgreSQL docs 13.2.1 (read committed)",
		},
		Writers:   []string{"INSERT", "UPDATE"},
		Statement: true,
	}
	pgRRSnapshot = Mechanism{
		Kind: SnapshotPredicate,
		Rule: verdict.Rule{
			Name:   "postgres-rr-transaction-snapshot",
			Text:   "a write's predicate is evaluated on the transaction's snapshot, which does not include a concurrent uncommitted insert",
			Source: "PostgreSQL docs 13.2.2 (repeatable read)",
		},
		Writers: []string{"INSERT"},
	}
)

// Docs says where each DBMS family documents its isolation levels; a rule
// that cites a DBMS's promise cites this.
var Docs = map[string]string{
	"postgres":  "PostgreSQL docs 13.2 Transaction Isolation (Table 13.1)",
	"mariadb":   "MariaDB docs: SET TRANSACTION; InnoDB transaction isolation levels",
	"mysql":     "MySQL docs 17.7.2.1 Transaction Isolation Levels",
	"sqlite":    "SQLite docs: Isolation In SQLite",
	"tidb":      "TiDB docs: TiDB Transaction Isolation Levels",
	"cockroach": "CockroachDB docs: Transactions (isolation levels)",
}

// Level lists.
var (
	ru, rc, rr, snap, ser = txn.ReadUncommitted, txn.ReadCommitted, txn.RepeatableRead, txn.Snapshot, txn.Serializable
	innodb                = []string{"mysql", "mariadb"}
)

func lv(ls ...txn.Level) []txn.Level { return ls }

// table is the semantics table. DBMS names are target.Info().DBMS values.
var table = []row{
	// The promise of each level, per family.
	{levels: lv(ru), source: "Adya PL-1", promise: forbid("G0")},
	{levels: lv(rc), source: "Adya PL-2", promise: forbid(pl2...)},
	{dbms: []string{"mysql", "mariadb", "tidb"}, levels: lv(rr), source: srcInnoDBRead, promise: forbid(pl2...)},
	{dbms: []string{"mariadb"}, levels: lv(rr), when: "innodb_snapshot_isolation=ON", source: srcInnoDBSI, promise: forbid("lost-update")},
	{dbms: []string{"postgres"}, levels: lv(rr), source: Docs["postgres"], promise: forbid(si...)},
	{levels: lv(snap), source: "Adya PL-SI", promise: forbid(si...)},
	// TiDB's optimistic transactions are snapshot isolation at both levels
	// (read committed takes effect only in pessimistic mode).
	{dbms: []string{"tidb"}, levels: lv(rc, rr), mode: TiDBOptimistic, source: srcTiDBLevel, promise: forbid(si...)},
	{levels: lv(ser), source: "SQL standard; Adya PL-3", promise: func(p *Promised) {
		p.Serializable = true
		r := anySerialOrder
		p.AnySerialOrder = &r
		p.Forbidden = append(p.Forbidden, "G0", "G1a", "G1b", "G1c", "G-single", "G2")
	}},
	{dbms: []string{"postgres", "cockroach"}, levels: lv(ser), source: pgSSIReads.Source, promise: func(p *Promised) {
		r := pgSSIReads
		p.ReadsAnyOrder = &r
	}},
	{dbms: []string{"sqlite"}, levels: lv(ser), source: sqliteWALReads.Source, promise: func(p *Promised) {
		r := sqliteWALReads
		p.ReadsAnyOrder = &r
	}},
	// The documented mechanisms WSS tests.
	{dbms: []string{"postgres"}, levels: lv(ru, rc), source: pgRCSnapshot.Rule.Source, promise: mechanisms(pgRCSnapshot)},
	{dbms: innodb, levels: lv(ru, rc), source: innodbRCGaps.Rule.Source, promise: mechanisms(innodbRCGaps, innodbSemiConsistent)},
	{dbms: []string{"postgres"}, levels: lv(rr), source: pgRRSnapshot.Rule.Source, promise: mechanisms(pgRRSnapshot)},

	// InnoDB (MariaDB, MySQL): the statement views.
	{dbms: innodb, source: srcInnoDBRead, views: func(r *Rules) {
		r.RowLocks = true
		r.SnapshotAt = FirstConsistentRead
		r.Errors = []txn.ErrorClass{txn.ClassDeadlock, txn.ClassLockTimeout}
		r.Sources = []string{srcInnoDBRead, srcInnoDBLocks, srcInnoDBLockingRead, srcInnoDBLockModes, srcInnoDBClustered, srcInnoDBForeignKeys}
		r.Target = readsOf(Current)
		r.Source = readsOf(Current)
		r.NoOpLockUnknown = true
		r.NoOpNoVersion = true
		r.ClusteredKey = true
		r.LazyReadView = true
		r.ShareLocksMayMiss = true
		r.SavepointLocks = SavepointKeepsButInserts
		r.SavepointSource = srcInnoDBSavepoint
		r.ForeignKeys = FKInnoDB
		r.FoldingCollation = true
		r.UpsertLocksRow = true
		r.SavepointUnlock = &mysql95049
		r.SavepointReadView = &innodbSavepointReadView
		r.Joins = &Joins{Read: Current, Locked: true, Source: srcInnoDBJoins}
	}},
	{dbms: innodb, levels: lv(ru, rc, rr, ser), source: srcInnoDBRead, views: known},
	{dbms: innodb, source: srcInnoDBForeignKeys, views: func(r *Rules) { r.ForeignKeyIndexes = true }},
	{dbms: innodb, levels: lv(ru), source: srcInnoDBRead, views: func(r *Rules) {
		r.Target[KindSelect] = Dirty
		r.Source = readsOf(Dirty)
	}},
	{dbms: innodb, levels: lv(rc), source: srcInnoDBRead, views: func(r *Rules) {
		r.Target[KindSelect] = SnapStatement
		r.Source = readsOf(SnapStatement)
	}},
	{dbms: innodb, levels: lv(rr, ser), source: srcInnoDBLockingRead, views: func(r *Rules) {
		r.Target[KindSelect] = SnapTxn
		// A locking clause does not lock the rows of a nested subquery:
		// those are consistent reads.
		r.Source[KindSelectShare], r.Source[KindSelectUpdate] = SnapTxn, SnapTxn
	}},
	{dbms: innodb, levels: lv(rr, ser), source: srcInnoDBLocks, views: func(r *Rules) { r.ScanLocks = true }},
	{dbms: innodb, levels: lv(ru, rc), source: innodbRCScanLock.Rule.Source, views: func(r *Rules) { r.ScanLockMayStay = &innodbRCScanLock }},
	{dbms: innodb, levels: lv(ser), source: srcInnoDBRead, views: func(r *Rules) { r.LockingSelectInTxn = true }},
	{dbms: []string{"mariadb"}, levels: lv(rr, ser), when: "innodb_snapshot_isolation=ON", source: srcInnoDBSI, views: func(r *Rules) {
		r.WriteConflict = txn.ClassSerialization
		r.ConflictAfterWait = &mdev39263
		r.Sources = append(r.Sources, srcInnoDBSI)
	}},
	{dbms: []string{"mariadb"}, levels: lv(rr, ser), when: "innodb_snapshot_isolation!=ON", source: mdev26642.Rule.Source, views: func(r *Rules) { r.NoOpUpdate = &mdev26642 }},
	{dbms: []string{"mysql"}, levels: lv(rr, ser), source: mysqlNoOp.Rule.Source, views: func(r *Rules) { r.NoOpUpdate = &mysqlNoOp }},
	{dbms: innodb, levels: lv(ru, rc), source: innodbIndexMove.Rule.Source, views: func(r *Rules) { r.IndexMoveMayMiss = &innodbIndexMove }},
	{dbms: []string{"mariadb"}, levels: lv(ru, rc), source: mdev30835.Rule.Source, views: func(r *Rules) { r.UncommittedInsert = &mdev30835 }},
	{dbms: []string{"mariadb"}, levels: lv(ru), source: mdev26643.Rule.Source, views: func(r *Rules) { r.SemiConsistent = &mdev26643 }},
	{dbms: []string{"mariadb"}, levels: lv(rc), when: "innodb_snapshot_isolation!=ON", source: mdev26643.Rule.Source, views: func(r *Rules) { r.SemiConsistent = &mdev26643 }},
	{dbms: []string{"mysql"}, levels: lv(ru, rc), source: mysql110347.Rule.Source + "; " + mysql104833.Rule.Source, views: func(r *Rules) {
		r.UncommittedInsert = &mysql110347
		r.SemiConsistent = &mysql104833
	}},

	// PostgreSQL.
	{dbms: []string{"postgres"}, source: srcPGMVCC, views: func(r *Rules) {
		r.RowLocks = true
		r.SnapshotAt = FirstStatement
		r.Errors = []txn.ErrorClass{txn.ClassDeadlock}
		r.Sources = []string{srcPGMVCC}
		r.FailureAborts = true
		r.SkipLockedLimit = true
	}},
	{dbms: []string{"postgres"}, source: srcPGRowLocks, views: func(r *Rules) {
		r.KeyLocks = true
		r.Sources = append(r.Sources, srcPGRowLocks)
	}},
	{dbms: []string{"postgres"}, source: SrcPGTableLocks, views: func(r *Rules) { r.TableLocks = true }},
	{dbms: []string{"postgres"}, source: srcPGForeignKeys, views: func(r *Rules) {
		r.ForeignKeys = FKPostgres
		r.Sources = append(r.Sources, srcPGForeignKeys)
	}},
	{dbms: []string{"postgres"}, source: srcPGSavepoint, views: func(r *Rules) { r.SavepointSource = srcPGSavepoint }},
	{dbms: []string{"postgres"}, source: srcPGUpsert, views: func(r *Rules) { r.UpsertWritesRow = true }},
	{dbms: []string{"postgres"}, source: srcPGUniqueFeatures, views: func(r *Rules) { r.UniqueIndexFeatures = true }},
	{dbms: []string{"postgres"}, levels: lv(ru, rc), source: srcPGMVCC, views: func(r *Rules) {
		r.Known = true
		r.Target = readsOf(Recheck)
		r.Target[KindSelect] = SnapStatement
		r.Target[KindInsert] = Current
		r.Target[KindInsertSelect] = Current
		r.Target[KindUpsert] = Current
		r.Source = readsOf(SnapStatement)
		r.Joins = &Joins{Read: SnapStatement, RecheckJoined: true, Source: srcPGJoins}
		r.Target[KindMerge], r.Source[KindMerge] = Recheck, SnapStatement
		r.Merge = &Merge{RecheckFromFirst: true, RecheckNotMatched: true, Source: srcPGMerge}
	}},
	{dbms: []string{"postgres"}, levels: lv(rr, ser), source: srcPGMVCC, views: func(r *Rules) {
		r.Known = true
		r.Target = readsOf(SnapTxn)
		r.Target[KindInsert] = Current
		r.Target[KindInsertSelect] = Current
		r.Target[KindUpsert] = Current
		r.Source = readsOf(SnapTxn)
		r.Joins = &Joins{Read: SnapTxn, Source: srcPGJoins}
		// No re-check: a row it updates or deletes that changed after the
		// snapshot is the serialization failure.
		r.Target[KindMerge], r.Source[KindMerge] = SnapTxn, SnapTxn
		r.Merge = &Merge{Source: srcPGMerge}
		r.WriteConflict = txn.ClassSerialization
	}},
	{dbms: []string{"postgres"}, levels: lv(ser), source: srcPGMVCC, views: func(r *Rules) {
		r.Errors = append(r.Errors, txn.ClassSerialization)
		r.ReadsLockPredicates = true
	}},

	// SQLite (serializable only).
	{dbms: []string{"sqlite"}, source: srcSQLite, views: func(r *Rules) {
		r.SnapshotAt = FirstStatement
		r.Target = readsOf(SnapTxn)
		r.Source = readsOf(SnapTxn)
		r.WriteConflict = txn.ClassBusy
		r.Errors = []txn.ErrorClass{txn.ClassBusy, txn.ClassSerialization}
		r.Sources = []string{srcSQLite, srcSQLiteForeignKeys}
		r.ForeignKeys = FKSQLite
		r.Joins = &Joins{Read: SnapTxn, Source: srcSQLiteJoins}
		r.AutoIncrementFromHistory = true
		r.Sources = append(r.Sources, srcSQLiteAutoinc)
	}},
	{dbms: []string{"sqlite"}, levels: lv(ser), source: srcSQLite, views: known},
	{dbms: []string{"sqlite"}, source: srcSQLiteUnique, views: func(r *Rules) { r.UniqueIndexFeatures = true }},

	// CockroachDB: serializable, and read committed overriding it.
	{dbms: []string{"cockroach"}, source: srcCockroach, views: func(r *Rules) {
		r.RowLocks = true
		r.SnapshotAt = FirstStatement
		r.Errors = []txn.ErrorClass{txn.ClassSerialization, txn.ClassDeadlock}
		r.Sources = []string{srcCockroach}
		r.Target = readsOf(SnapTxn)
		r.Source = readsOf(SnapTxn)
		r.WriteConflict = txn.ClassSerialization
		// Its reads are tracked as key spans that a commit refreshes.
		r.ReadsLockPredicates = true
	}},
	{dbms: []string{"cockroach"}, levels: lv(rc, ser), source: srcCockroach, views: known},
	{dbms: []string{"cockroach"}, source: srcCockroachUpsert, views: func(r *Rules) { r.UpsertWritesRow = true }},
	{dbms: []string{"cockroach"}, source: srcCockroachFeatures, views: func(r *Rules) { r.UniqueIndexFeatures = true }},
	{dbms: []string{"cockroach"}, levels: lv(rc), source: srcCockroach, views: func(r *Rules) {
		r.Target = readsOf(Current)
		r.Target[KindSelect] = SnapStatement
		r.Source = readsOf(SnapStatement)
		r.WriteConflict = ""
		r.ReadsLockPredicates = false
	}},

	// TiDB, per transaction mode (Lookup gives both modes' rules).
	{dbms: []string{"tidb"}, source: srcTiDBBegin, views: func(r *Rules) {
		// The snapshot is taken at BEGIN (and, at read committed in
		// pessimistic mode, a plain SELECT takes one of its own).
		r.SnapshotAt = AtBegin
		r.Errors = []txn.ErrorClass{txn.ClassDeadlock, txn.ClassLockTimeout, txn.ClassSerialization}
		r.Sources = []string{srcTiDBBegin, srcTiDBMode, srcTiDBLevel}
		r.NoOpUpdate = &tidb28212
		// Whether an UPDATE that changed nothing writes a version or keeps
		// its lock is not documented: it only may conflict or block.
		r.NoOpNoVersion = true
		r.NoOpLockUnknown = true
		r.ClusteredKey, r.KeyPrimaryOnly, r.KeyBinary = true, true, true
		r.Sources = append(r.Sources, srcTiDBClustered)
		r.SavepointSource = srcTiDBSavepoint
		r.SkipLockedOpen = true
	}},
	{dbms: []string{"tidb"}, levels: lv(rc, rr), source: srcTiDBLevel, views: known},
	{dbms: []string{"tidb"}, source: srcTiDBForeignKeys, views: func(r *Rules) { r.ForeignKeyIndexes = true }},
	// Optimistic: every statement reads the snapshot of the transaction's
	// start (read committed does not apply); writes are buffered and lock
	// nothing until COMMIT, which fails on a row another transaction
	// changed since the start.
	{dbms: []string{"tidb"}, mode: TiDBOptimistic, source: srcTiDBOpt, views: func(r *Rules) {
		r.Target, r.Source = readsOf(SnapTxn), readsOf(SnapTxn)
		r.CommitConflict = txn.ClassSerialization
		r.Sources = append(r.Sources, srcTiDBOpt, srcTiDBCons)
	}},
	{dbms: []string{"tidb"}, mode: TiDBOptimistic, when: "tidb_constraint_check_in_place!=ON", source: srcTiDBCons, views: func(r *Rules) { r.LazyUnique = true }},
	// Pessimistic: DML and SELECT FOR UPDATE read the latest committed
	// data, subqueries and INSERT … SELECT sources included (a statement
	// reads at one timestamp; an embedded SELECT is only not locked), and
	// lock what they act on. LOCK IN SHARE MODE is an error; with
	// tidb_enable_noop_functions it is a plain read that locks nothing.
	{dbms: []string{"tidb"}, mode: TiDBPessimistic, source: srcTiDBPess, views: func(r *Rules) {
		r.RowLocks = true
		r.Target, r.Source = readsOf(Current), readsOf(Current)
		snap := SnapTxn
		if r.Level == txn.ReadCommitted {
			snap = SnapStatement
		}
		r.Target[KindSelect], r.Source[KindSelect] = snap, snap
		r.Target[KindSelectShare], r.Source[KindSelectShare] = snap, snap
		r.ShareLocksMayMiss = true
		r.UncommittedInsert = &tidbUncommittedInsert
		r.UncommittedInsertAnyWrite = true
		r.UncommittedChange = &tidbUncommittedChange
		r.AutocommitOptimistic = &tidbAutocommitOptimistic
		r.SavepointLocks = SavepointKeeps
		r.Sources = append(r.Sources, srcTiDBPess, srcTiDBCons)
	}},
	{dbms: []string{"tidb"}, levels: lv(rr), mode: TiDBPessimistic, source: tidb45677.Rule.Source, views: func(r *Rules) { r.SubquerySnapshot = &tidb45677 }},
	// A row is its primary key's record, unless the primary key is a
	// unique index beside a hidden row id (NONCLUSTERED).
	{dbms: []string{"tidb"}, when: "tidb_enable_clustered_index=OFF", source: srcTiDBClustered, views: func(r *Rules) { r.ClusteredKey = false }},
	{dbms: []string{"tidb"}, when: "tidb_enable_clustered_index=INT_ONLY", source: srcTiDBClustered, views: func(r *Rules) { r.KeyIntOnly = true }},
	{dbms: []string{"tidb"}, when: "tidb_store=unistore", source: tidb57170.Rule.Source, views: func(r *Rules) { r.ReverseScan = &tidb57170 }},
}

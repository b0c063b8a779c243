// Package rules is txlab's table of DBMS semantics as data: for each DBMS
// family, isolation level, transaction mode and server setting, what the
// level promises (Promised, which package semantics judges with) and how
// each statement kind reads, locks and conflicts, with the documented
// variations and confirmed defects and their verdicts (Rules, which
// semantics/model's Engine replays). Every row of the table names its
// source. The package imports only leaf packages (verdict, target/txn):
// adding a DBMS is a row here, not engine code.
package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/target/txn"
	"github.com/txlab/txlab/verdict"
)

// Kind is what a statement does, as far as the model cares.
type Kind int

// Statement kinds.
const (
	KindSelect       Kind = iota // plain SELECT
	KindSelectShare              // SELECT … FOR SHARE / LOCK IN SHARE MODE
	KindSelectUpdate             // SELECT … FOR UPDATE
	KindUpdate
	KindDelete
	KindInsert       // INSERT … VALUES
	KindInsertSelect // INSERT … SELECT
	KindUpsert       // REPLACE, ON DUPLICATE KEY UPDATE, ON CONFLICT
	// KindMerge is PostgreSQL's MERGE: its target is read as Target
	// says, its source as Source says, where Rules.Merge is set; the
	// kinds above take no entry for it (readsOf).
	KindMerge
)

var kindNames = [...]string{"SELECT", "SELECT FOR SHARE", "SELECT FOR UPDATE", "UPDATE", "DELETE", "INSERT", "INSERT SELECT", "UPSERT", "MERGE"}

func (k Kind) String() string { return kindNames[k] }

// Locking reports whether the statement takes row locks on what it reads.
func (k Kind) Locking() bool { return k != KindSelect }

// Exclusive reports whether its row locks are exclusive.
func (k Kind) Exclusive() bool { return k != KindSelect && k != KindSelectShare }

// Read is how a statement picks the version of a row it sees.
type Read int

// Read modes.
const (
	// SnapStatement: a consistent read of what had committed when the
	// statement started, plus the transaction's own writes.
	SnapStatement Read = iota
	// SnapTxn: a consistent read of what had committed when the
	// transaction took its snapshot (Rules.SnapshotAt), plus its own writes.
	SnapTxn
	// Current: the latest committed version (a locking read); the statement
	// waits for rows locked by others. A version committed while it waited
	// may or may not be seen (no gap locks at RC; at RR only rows already
	// scanned are protected).
	Current
	// Dirty: the latest version, uncommitted ones included.
	Dirty
	// Recheck: PostgreSQL's EvalPlanQual: the rows found in the statement's
	// snapshot that match, each re-checked and acted on in its latest
	// committed version; rows that were not in the snapshot are not seen.
	Recheck
)

// Joins is how a write across tables reads the tables it joins to the
// one it writes. The model follows such a write as the single-table write
// whose WHERE is EXISTS (the join's rows) and whose values read the joined
// row through a subquery.
type Joins struct {
	// Read is how it reads the joined tables' rows.
	Read Read
	// Locked: it locks the joined rows it reads, to the end of the
	// transaction, in ways the model does not record row by row.
	Locked bool
	// SemiConsistent: the semi-consistent read of an UPDATE
	// (Rules.SemiConsistent) applies to its target's rows too.
	SemiConsistent bool
	// RecheckJoined: a target row re-checked after a wait (Recheck) is
	// joined again with the joined rows its first version met, not with
	// the joined tables: where the new version changed a column the join
	// reads, it is written only if one of those rows meets it too
	// (PostgreSQL's EvalPlanQual). Otherwise the re-check is one of the
	// single-table write's WHERE, EXISTS over the joined tables' views.
	RecheckJoined bool
	// Source is where the DBMS documents it, or where it was measured.
	Source string
}

// Merge is how PostgreSQL's MERGE (15 and later) writes its target: the
// source rows are joined with the target's rows ON the join condition, as
// Target[KindMerge] reads the target and Source[KindMerge] the source;
// for each matched pair the first WHEN MATCHED clause whose condition
// holds acts (UPDATE, DELETE, DO NOTHING), for each source row no target
// row meets the first WHEN NOT MATCHED one (INSERT, DO NOTHING); a pair
// no clause takes is left alone. A row it updates or deletes is locked and
// waited for (and, where WriteConflict is set, one changed after the
// snapshot is that error); a row it leaves alone (DO NOTHING, no clause)
// is neither.
type Merge struct {
	// RecheckFromFirst: a matched row that a transaction which committed
	// while the MERGE waited for it changed (Target Recheck), whose latest
	// version still meets the source row it met, is acted on as that
	// version: the WHEN MATCHED conditions are evaluated again on it from
	// the first clause, whichever clause took the first version. Without
	// it the model does not follow such a re-check.
	RecheckFromFirst bool
	// RecheckNotMatched: such a row whose latest version is deleted or no
	// longer meets its source row leaves that source row to the WHEN NOT
	// MATCHED clauses, as if no target row had met it (whether other
	// target rows meet it or not). Without it the model does not follow
	// such a re-check.
	RecheckNotMatched bool
	// Source is where the DBMS documents it, and where it was measured.
	Source string
}

// SnapshotAt says when a transaction-level snapshot is taken.
type SnapshotAt int

// Snapshot points.
const (
	// FirstStatement: the first statement other than transaction control
	// (PostgreSQL, SQLite, CockroachDB, TiDB).
	FirstStatement SnapshotAt = iota
	// FirstConsistentRead: the first plain SELECT (InnoDB).
	FirstConsistentRead
	// AtBegin: the BEGIN that starts an explicit transaction (TiDB, whose
	// START TRANSACTION is MySQL's WITH CONSISTENT SNAPSHOT); an autocommit
	// statement's own start.
	AtBegin
)

// Variation is a documented (or vendor-confirmed) way a DBMS departs from
// the plain view rules. An outcome only the variation explains gets the
// variation's verdict and rule: allowed for documented behaviour, bug for a
// defect the vendor confirmed.
type Variation struct {
	Rule    verdict.Rule
	Verdict verdict.Verdict
}

// Rules is the model of one DBMS family at one isolation level under the
// server settings that matter.
type Rules struct {
	DBMS  string
	Level txn.Level
	// Target is how each statement kind reads the rows of the table it reads
	// or writes (a SELECT: every table it reads).
	Target map[Kind]Read
	// Source is how a write statement reads other tables (subqueries, the
	// SELECT of INSERT … SELECT).
	Source map[Kind]Read
	// AutoIncrementFromHistory: an INSERT that leaves an AUTO_INCREMENT
	// key to the DBMS gets one more than the largest key the table has
	// held (its committed rows' and the writer's own, deleted ones
	// included) or holds now, row by row: SQLite's AUTOINCREMENT, whose
	// counter (sqlite_sequence) is a table written in the writer's
	// transaction, one writer at a time. Elsewhere such numbers are not
	// transactional and the model does not follow the INSERT.
	AutoIncrementFromHistory bool
	// Joins is how a write across tables that writes one of them (UPDATE
	// a JOIN b … SET a.…, UPDATE a … FROM b, DELETE a FROM a JOIN b,
	// DELETE FROM a USING b) reads the others; nil: the model does not
	// follow such a write.
	Joins *Joins
	// Merge is how a MERGE writes its target (nil: the model does not
	// follow MERGE).
	Merge      *Merge
	SnapshotAt SnapshotAt
	// LockingSelectInTxn: a plain SELECT inside an explicit transaction is
	// run as SELECT … FOR SHARE (InnoDB serializable).
	LockingSelectInTxn bool
	// ReadsLockPredicates: a plain read takes predicate locks that decide
	// which transactions later fail (PostgreSQL's SIREAD locks at
	// serializable: a sequential scan locks the whole relation, an index
	// scan only what it read), so reading more of a table than the
	// statement does changes the execution.
	ReadsLockPredicates bool
	// RowLocks: writes and locking reads lock rows and wait for conflicting
	// locks of other transactions.
	RowLocks bool
	// KeyLocks: row locks have PostgreSQL's four strengths (FOR KEY
	// SHARE, FOR SHARE, FOR NO KEY UPDATE, FOR UPDATE): an UPDATE that
	// changes no key column takes FOR NO KEY UPDATE, which a FOR KEY SHARE
	// lock does not block; a DELETE and a key-changing UPDATE take FOR
	// UPDATE. Elsewhere locks are shared or exclusive.
	KeyLocks bool
	// TableLocks: statements take PostgreSQL's table-level locks (ACCESS
	// SHARE, ROW SHARE, ROW EXCLUSIVE) and LOCK TABLE any mode; a
	// statement waits for a conflicting one another transaction holds.
	TableLocks bool
	// UncommittedInsert says whether an UPDATE that finds a matching row
	// another transaction inserted and has not committed must wait for it
	// (nil: it must) or what skipping it means.
	UncommittedInsert *Variation
	// UncommittedChange, when set, is what it means that a locking
	// statement that waited skipped a row whose committed version did not
	// match when it started and which the lock holder's change, not yet
	// committed then, made match (TiDB: a current read reads the latest
	// committed data and locks the rows it finds).
	UncommittedChange *Variation
	// SemiConsistent, when set, is what it means that an UPDATE skipped,
	// without waiting, a row another transaction held locked because the
	// row's last committed version did not match (InnoDB's semi-consistent
	// read at RU/RC; MariaDB and MySQL confirmed the skipped rows as bugs).
	SemiConsistent *Variation
	// WriteConflict, when set, is the error class a write (or locking read)
	// must fail with when it acts on a row whose latest committed version is
	// newer than the transaction's snapshot (first-updater-wins).
	WriteConflict txn.ErrorClass
	// ConflictAfterWait, when set, is what it means that a write which
	// waited for a row's lock, and whose holder committed a change to the
	// row meanwhile, succeeded where WriteConflict requires an error
	// (MariaDB confirmed it as MDEV-39263).
	ConflictAfterWait *Variation
	// IndexMoveMayMiss, when set, is what it means that a locking
	// statement which waited missed a row whose version changed, during
	// the wait, a column of a secondary index (InnoDB without gap locks:
	// the new index record can land behind the statement's index scan).
	IndexMoveMayMiss *Variation
	// NoOpUpdate, when set, says an UPDATE that leaves a row's values
	// unchanged writes no version, so the transaction's later consistent
	// reads still see its snapshot's version.
	NoOpUpdate *Variation
	// ShareLocksMayMiss: a shared locking read may lock only the records
	// of a covering secondary index, which a write through another index
	// does not meet (InnoDB), so its locks only may block.
	ShareLocksMayMiss bool
	// ScanLocks: a locking statement locks every record it scans, whether
	// or not the row matches its WHERE, and keeps the locks to the end of
	// the transaction; a write's subqueries take shared locks on the rows
	// they read (InnoDB at REPEATABLE READ and SERIALIZABLE: MySQL 8.0
	// manual 17.7.3). Which records a statement scans depends on its plan,
	// so such a row only may be locked (SKIP LOCKED may leave it out).
	ScanLocks bool
	// ScanLockMayStay, when set, is what it means that a SKIP LOCKED read
	// left out a row another transaction's locking statement scanned but
	// did not match, where the documents say that lock is released (InnoDB
	// at READ COMMITTED: MariaDB 10.11.19 kept the lock of the first record
	// past a DELETE's index range).
	ScanLockMayStay *Variation
	// LazyReadView: a statement's consistent read takes its view when it
	// first runs, which may be after the statement waited for a lock
	// (InnoDB subqueries of locking statements).
	LazyReadView bool
	// ClusteredKey: a row is its clustered-index record (InnoDB: the
	// primary key, else the first UNIQUE index whose columns are all NOT
	// NULL; MySQL manual 17.6.2.1). An UPDATE of those columns deletes the
	// row and inserts a new one, so a transaction that later updates the
	// moved row still sees the old row in its snapshot; an INSERT of the
	// key of a deleted row writes a new version of that row, so a snapshot
	// that still had the old row shows the inserting transaction its own
	// row in its place. Elsewhere a row keeps its identity.
	ClusteredKey bool
	// KeyPrimaryOnly: the clustered key is the primary key alone, never a
	// UNIQUE index (TiDB clusters a table by its primary key, or by a
	// hidden row id); KeyBinary: key text compares case-sensitively
	// (TiDB's default utf8mb4_bin).
	KeyPrimaryOnly bool
	KeyBinary      bool
	// KeyIntOnly: only a single integer column primary key clusters
	// (TiDB with tidb_enable_clustered_index=INT_ONLY).
	KeyIntOnly bool
	// NoOpNoVersion: an UPDATE that changes no value creates no record
	// version (InnoDB), so it is no write conflict for a later writer.
	NoOpNoVersion bool
	// NoOpLockUnknown: whether an UPDATE that changed nothing keeps its
	// row lock is not documented (InnoDB at RC was seen not to), so such a
	// row only may block others.
	NoOpLockUnknown bool
	// UncommittedInsertAnyWrite: UncommittedInsert is what skipping such a
	// row means for every locking statement (DELETE, SELECT … FOR UPDATE),
	// not only for an UPDATE.
	UncommittedInsertAnyWrite bool
	// AutocommitOptimistic, when set, is what it means that a single
	// autocommit statement did not wait for a locked row it leaves
	// unchanged: it runs optimistically first, taking no locks and
	// writing only the rows it changes (TiDB); an autocommit SELECT … FOR
	// UPDATE then waits for no lock at all.
	AutocommitOptimistic *Variation
	// ReverseScan, when set, is what it means that a SELECT that may scan
	// an index backwards (ORDER BY … DESC, MAX) read a row's latest
	// committed version instead of its snapshot's (TiDB's unistore:
	// pingcap/tidb#57170).
	ReverseScan *Variation
	// SubquerySnapshot, when set, is what it means that a subquery of a
	// statement that reads the latest committed data (a DML statement, a
	// locking read) read the transaction's snapshot instead (TiDB
	// evaluates an uncorrelated subquery while planning, at its start_ts:
	// pingcap/tidb#45677).
	SubquerySnapshot *Variation
	// LazyUnique: an INSERT in an explicit transaction checks its unique
	// keys only at COMMIT (TiDB's optimistic transactions unless
	// tidb_constraint_check_in_place=ON): an INSERT that duplicates a key
	// of its view succeeds, and the COMMIT must fail.
	LazyUnique bool
	// SavepointLocks is what ROLLBACK TO SAVEPOINT does with the row locks
	// its transaction took after the savepoint.
	SavepointLocks SavepointLocks
	// SavepointUnlock, when set, is what it means that a statement did not
	// wait for a lock ROLLBACK TO SAVEPOINT should have kept (InnoDB
	// releases it: MySQL #95049).
	SavepointUnlock *Variation
	// SavepointReadView, when set, is what it means that a transaction's
	// consistent reads after a ROLLBACK TO a savepoint it set before its
	// first statement read a newer snapshot: the server rolls back in full
	// each storage engine that joined the transaction after the savepoint,
	// read view included (MariaDB and MySQL sql/handler.cc,
	// ha_rollback_to_savepoint).
	SavepointReadView *Variation
	// CommitConflict, when set, is the error class a COMMIT must fail with
	// when a row its transaction wrote has a version another transaction
	// committed after its snapshot (TiDB's optimistic transactions: write
	// conflicts are found at commit, first committer wins).
	CommitConflict txn.ErrorClass
	// SavepointSource is where the DBMS documents what ROLLBACK TO
	// SAVEPOINT does with locks ("": not documented, or not modelled).
	SavepointSource string
	// ForeignKeys is whose foreign-key checks and actions the engine
	// follows.
	ForeignKeys ForeignKeys
	// FailureAborts: a statement that fails aborts its transaction, and
	// nothing the statement or its checks did remains (PostgreSQL:
	// "current transaction is aborted").
	FailureAborts bool
	// SkipLockedLimit: a locking read with ORDER BY … LIMIT locks rows as
	// it returns them and stops once it has enough (PostgreSQL 15 docs,
	// SELECT, The Locking Clause), so which rows SKIP LOCKED left out is
	// decided even when it reads several.
	SkipLockedLimit bool
	// SkipLockedOpen: which rows SKIP LOCKED leaves out is not documented
	// (TiDB), so the model does not decide it.
	SkipLockedOpen bool
	// FoldingCollation: the default collation compares strings up to case
	// and trailing spaces (MariaDB and MySQL: utf8mb4_general_ci /
	// _0900_ai_ci and latin1_swedish_ci are case-insensitive PAD SPACE
	// collations; TiDB's default, utf8mb4_bin, is binary).
	FoldingCollation bool
	// UpsertLocksRow: a MySQL-dialect ON DUPLICATE KEY UPDATE sets an
	// exclusive lock on the duplicate row and writes nothing where it
	// changes nothing (InnoDB: MySQL 8.0 manual 17.7.3), so the model can
	// mark the rows it updates.
	UpsertLocksRow bool
	// UpsertWritesRow: an ON CONFLICT DO UPDATE writes a new version of
	// the row it meets and locks it, even where no value changes
	// (PostgreSQL), so the model can mark the rows it updates. Where
	// neither this nor UpsertLocksRow holds, the model does not mark them.
	UpsertWritesRow bool
	// ForeignKeyIndexes: a foreign key's referencing columns get a
	// secondary index where no index starts with them (InnoDB, TiDB), which
	// the rules that follow index records (IndexMoveMayMiss) see.
	ForeignKeyIndexes bool
	// UniqueIndexFeatures: a UNIQUE partial or expression index only
	// decides which writes fail on another row's key (PostgreSQL, SQLite),
	// so the model's copy gets it and refuses what the DBMS refuses.
	// Elsewhere (InnoDB, where a UNIQUE index may be the clustered key the
	// model follows) a write to its table stops the judging.
	UniqueIndexFeatures bool
	// Mode names the transaction mode these rules are of, where the DBMS
	// has several (TiDB: "pessimistic", "optimistic"); "" elsewhere.
	Mode string
	// Modes are the rules of each transaction mode at this level, by name:
	// a transaction that names its mode (TiDB's BEGIN OPTIMISTIC, BEGIN
	// PESSIMISTIC) follows those instead of these, and a single autocommit
	// statement follows Modes[Autocommit] ("": these).
	Modes      map[string]*Rules
	Autocommit string
	// Errors lists error classes any statement may fail with (deadlock
	// victims, serialization failures at serializable, busy).
	Errors []txn.ErrorClass
	// Sources are where the rows above are documented.
	Sources []string
	// Known is false when the table has no row for the DBMS and level.
	Known bool
}

// ForeignKeys is which DBMS's foreign-key checks and actions the engine
// follows; each has its own mechanism (semantics/model: fk_immediate.go,
// fk_trigger.go, fk_lockfree.go).
type ForeignKeys int

// Foreign-key models.
const (
	// FKNone: the engine follows no DBMS's checks of its own.
	FKNone ForeignKeys = iota
	// FKInnoDB: immediate row-by-row checks that share-lock the parent
	// record they find (MySQL 8.4 manual 15.1.20.5, FOREIGN KEY
	// Constraints; storage/innobase/row/row0ins.cc).
	FKInnoDB
	// FKPostgres: the RI triggers' checks (src/backend/utils/adt/
	// ri_triggers.c): FOR KEY SHARE on the parent, a child's check at the
	// transaction snapshot, actions run as the parent's transaction.
	FKPostgres
	// FKSQLite: lock-free checks at each statement's end, a deferred
	// key's violations counted until COMMIT ("SQLite Foreign Key
	// Support" 4.2, 4.3).
	FKSQLite
)

// SavepointLocks is what ROLLBACK TO SAVEPOINT does with the row locks
// taken after the savepoint; the changes made after it are undone always.
type SavepointLocks int

// What ROLLBACK TO SAVEPOINT does with the locks.
const (
	// SavepointReleases: they are released (PostgreSQL).
	SavepointReleases SavepointLocks = iota
	// SavepointKeeps: they are kept to the transaction's end (TiDB's
	// pessimistic transactions).
	SavepointKeeps
	// SavepointKeepsButInserts: they are kept, except the lock of a row
	// the transaction inserted after the savepoint, which the undo
	// releases (InnoDB).
	SavepointKeepsButInserts
)

// Rule names a rule of this DBMS and level: "<dbms>-<level>-<what>", or
// "<dbms>-<mode>-<level>-<what>" for a transaction mode other than the
// DBMS's default (TiDB's optimistic transactions).
func (r Rules) Rule(what, text string) verdict.Rule {
	dbms := r.DBMS
	if r.Mode != "" && r.Mode != TiDBPessimistic {
		dbms += "-" + r.Mode
	}
	return verdict.Rule{
		Name:   dbms + "-" + strings.ToLower(r.Level.Abbrev()) + "-" + what,
		Text:   text,
		Source: strings.Join(r.Sources, "; "),
	}
}

// Name is the DBMS's name with the transaction mode, where it has several.
func (r Rules) Name() string {
	if r.Mode != "" {
		return r.DBMS + " (" + r.Mode + ")"
	}
	return r.DBMS
}

// StatementView is the rule of a statement outside the view its DBMS
// documents.
func (r Rules) StatementView() verdict.Rule {
	return r.Rule("statement-view", fmt.Sprintf("a statement's outcome must follow the view %s documents at %s", r.DBMS, r.Level))
}

// DocumentedViews is the rule of a difference (from a serial order, a
// textbook level) that the documented view of every statement produces.
func (r Rules) DocumentedViews() verdict.Rule {
	return r.Rule("documented-views", fmt.Sprintf("every statement saw, waited and wrote as %s documents at %s; the difference from the serial order comes from those views", r.DBMS, r.Level))
}

// Permits reports whether any statement may fail with class c.
func (r Rules) Permits(c txn.ErrorClass) bool { return slices.Contains(r.Errors, c) }

// Sources of the rules below (see ../shared/semantics-facts.md for the
// marks of each claim).
const (
	srcInnoDBRead        = "MariaDB docs, SET TRANSACTION (isolation levels); MySQL 8.0 manual 17.7.2.3 Consistent Nonlocking Reads"
	srcInnoDBSavepoint   = "MySQL 8.0 manual 15.3.4 SAVEPOINT, ROLLBACK TO SAVEPOINT, and RELEASE SAVEPOINT Statements (changes after the savepoint are undone, but InnoDB does not release the row locks taken after it, except a newly inserted row's, released in the undo)"
	srcPGSavepoint       = "PostgreSQL docs 13.3 Explicit Locking (a lock acquired after establishing a savepoint is released immediately if the savepoint is rolled back to); ROLLBACK TO SAVEPOINT"
	srcTiDBSavepoint     = "TiDB docs, SAVEPOINT (ROLLBACK TO SAVEPOINT reverts the data changes after the savepoint; in a pessimistic transaction the locks held are not rolled back but released when the transaction ends)"
	srcInnoDBLocks       = "MySQL 8.0 manual 17.7.3 Locks Set by Different SQL Statements in InnoDB"
	srcInnoDBLockingRead = "MySQL 8.0 manual 17.7.2.4 Locking Reads (a locking read clause does not lock rows read in nested subqueries)"
	srcInnoDBLockModes   = "MariaDB docs, InnoDB lock modes (locks are set on index records: a shared read through a covering index does not block an UPDATE of other columns)"
	srcInnoDBClustered   = "MySQL 8.0 manual 17.6.2.1 Clustered and Secondary Indexes (a table's rows are its clustered index: the primary key, else the first UNIQUE index whose columns are all NOT NULL)"
	srcInnoDBSI          = "MariaDB docs, innodb_snapshot_isolation (10.6.18, 10.11.8): error 1020 on a row changed after the read view"
	srcPGMVCC            = "PostgreSQL 15 docs 13.2 Transaction Isolation (13.2.3: predicate locks; a sequential scan locks the relation); src/backend/executor/README (EvalPlanQual)"
	srcSQLite            = "SQLite docs: Isolation In SQLite; WAL mode; result code SQLITE_BUSY_SNAPSHOT"
	srcInnoDBJoins       = "MySQL 8.0 manual 17.7.3 Locks Set by Different SQL Statements in InnoDB (UPDATE t … (SELECT … FROM s …): shared next-key locks on rows from s); MariaDB 10.11 ha_innobase::store_lock (the READ COMMITTED consistent read covers a single-table UPDATE's reads, not a multiple-table UPDATE's or DELETE's); measured on MariaDB 10.11.19 at READ COMMITTED and REPEATABLE READ: the joined rows are read current, wait for a writer's lock, stay share-locked to COMMIT, and a multiple-table UPDATE reads its target without the semi-consistent read"
	srcPGJoins           = "PostgreSQL 15 docs, UPDATE (from_item) and DELETE (using_item): the other tables are read as the statement's query reads them, without row locks (SELECT, The Locking Clause, locks only the tables FOR UPDATE names); src/backend/executor/README, EvalPlanQual: a re-checked target row is joined again with the rows of the other tables it met"
	srcPGMerge           = "PostgreSQL 15 docs, MERGE (each candidate change row takes the first WHEN clause of its kind whose condition holds; a target row that would be modified a second time is an error) and 13.2.1 Read Committed (a concurrently updated row whose join condition still passes has the actions' conditions re-evaluated on the updated version from the first action; one concurrently updated or deleted so that the join fails goes to the NOT MATCHED actions), 13.2.2 (a repeatable read transaction cannot modify or lock rows changed by other transactions); the 17 and 18 pages add only NOT MATCHED BY SOURCE, which the generator does not write; measured on PostgreSQL 15.18 and 18.4 (bugs/doc-pg-merge-*.txn): DO NOTHING neither waits for a locked row nor fails at REPEATABLE READ on a changed one, a re-checked source row goes to NOT MATCHED although another target row meets it, and a re-checked row stays locked whatever its new version takes"
	srcSQLiteAutoinc     = "SQLite docs, autoinc.html: with AUTOINCREMENT \"the ROWID chosen for the new row is at least one larger than the largest ROWID that has ever before existed in that same table\", kept in the ordinary table sqlite_sequence (its largest ROWID, which the usual algorithm takes one more than); Isolation In SQLite (one writer at a time)"
	srcSQLiteJoins       = "SQLite docs: UPDATE FROM (lang_update.html): the target row is joined with the FROM tables as a query would read them"
	srcCockroach         = "CockroachDB v23.2 docs: read-committed, transaction-retry-error-reference (untested here)"
	srcPGUpsert          = "PostgreSQL 15 docs, INSERT (ON CONFLICT DO UPDATE: \"all rows will be locked when the ON CONFLICT DO UPDATE action is taken\"; the update writes a new row version, as any UPDATE: 13.1 Introduction, MVCC)"
	srcPGUniqueFeatures  = "PostgreSQL 15 docs 11.8 Partial Indexes (Example 11.3: a partial unique index enforces uniqueness among the rows that satisfy its predicate, and constrains no other) and 11.7 Indexes on Expressions (a unique index on an expression constrains the expression's values)"
	srcSQLiteUnique      = "SQLite docs: Partial Indexes 3 (Unique Partial Indexes: the rows the WHERE clause selects must be unique, the others are not constrained); Indexes On Expressions (a UNIQUE index on expressions)"
	srcCockroachUpsert   = "CockroachDB v23.2 docs: INSERT (ON CONFLICT … DO UPDATE, PostgreSQL's upsert; untested here)"
	srcCockroachFeatures = "CockroachDB v23.2 docs: Partial Indexes, Expression Indexes (UNIQUE ones constrain the rows and values they index; untested here)"
)

// The sources of what the model follows of foreign keys (Rules.Sources; the mechanisms are semantics/model's fk_*.go).
const (
	srcInnoDBForeignKeys = "MySQL 8.0 manual 1.7.2.3 FOREIGN KEY Constraint Differences (a foreign key check sets shared row-level locks on the parent records it examines; InnoDB checks immediately, row by row), 15.1.20.5 FOREIGN KEY Constraints (an index on the referencing columns is created where none exists; RESTRICT and NO ACTION reject the parent's delete or key update, CASCADE deletes the child rows, SET NULL sets their key NULL) and 17.7.3 Locks Set by Different SQL Statements in InnoDB (a check sets shared locks on the index records it looks at, also where the constraint fails)"
	srcSQLiteForeignKeys = "SQLite docs, SQLite Foreign Key Support 4.2 (an immediate foreign key violation at the end of a statement reverts the statement; a deferred one fails the attempt to COMMIT) and 4.3 (ON DELETE / ON UPDATE CASCADE and SET NULL change the child rows as part of the parent's statement)"
)

// srcPGForeignKeys is where the model's reading of PostgreSQL's foreign
// keys comes from (Rules.Sources).
const srcPGForeignKeys = "PostgreSQL 15 docs, CREATE TABLE (REFERENCES: NO ACTION and RESTRICT raise an error when a referenced row is deleted or its key changed, CASCADE deletes or updates the referencing rows, SET NULL sets their referencing columns to null; NOT DEFERRABLE constraints are checked after every statement) and 13.3.2 Row-Level Locks (FOR KEY SHARE is taken by foreign key checks); src/backend/utils/adt/ri_triggers.c (the checks' queries: SELECT … FOR KEY SHARE, a child's check at the transaction snapshot, a parent's with the latest one; the actions' DELETE and UPDATE of the child run as the parent's transaction, with the transaction snapshot as crosscheck)"

// srcPGRowLocks is where PostgreSQL's row lock strengths are documented.
const srcPGRowLocks = "PostgreSQL 15 docs 13.3.2 Row-Level Locks and Table 13.3 Conflicting Row-Level Locks (FOR UPDATE is also acquired by any DELETE and by an UPDATE that modifies the values of a column of a unique index usable by a foreign key; FOR NO KEY UPDATE by any other UPDATE; FOR KEY SHARE conflicts with FOR UPDATE only, FOR SHARE with FOR NO KEY UPDATE and FOR UPDATE)"

// SrcPGTableLocks is where PostgreSQL's table-level locks are documented;
// the rule of a table lock wait cites it.
const SrcPGTableLocks = "PostgreSQL 15 docs 13.3.1 Table-Level Locks and Table 13.2 Conflicting Lock Modes (SELECT takes ACCESS SHARE on the tables it references; a SELECT with a locking clause ROW SHARE on the tables the clause applies to; UPDATE, DELETE and INSERT ROW EXCLUSIVE on their target; a lock is held to the transaction's end, or released by a ROLLBACK TO a savepoint set before it); LOCK (LOCK TABLE takes the mode it names, ACCESS EXCLUSIVE by default; with NOWAIT it fails instead of waiting; it does not take the snapshot of a repeatable read transaction)"

var (
	mdev30835 = Variation{
		Rule: verdict.Rule{
			Name:   "mdev-30835-update-skips-uncommitted-insert",
			Text:   "an UPDATE at read committed did not wait for a matching row another transaction inserted and had not committed",
			Source: "MDEV-30835, confirmed by MariaDB as a critical bug (WriteCheck, PVLDB 18(8), Fig. 5)",
		},
		Verdict: verdict.Bug,
	}
	mysql95049 = Variation{
		Rule: verdict.Rule{
			Name:   "mysql-95049-savepoint-rollback-releases-locks",
			Text:   "a statement did not wait for a row lock that the holder took after a savepoint and that ROLLBACK TO SAVEPOINT must keep (InnoDB keeps such locks, except an inserted row's)",
			Source: "MySQL Bug #95049 (ReplBug); the same on MySQL 8.0.41 as Bug #119490 (open); MySQL 8.0 manual 15.3.4 SAVEPOINT",
		},
		Verdict: verdict.Bug,
	}
	innodbRCScanLock = Variation{
		Rule: verdict.Rule{
			Name:   "innodb-rc-scan-lock-kept",
			Text:   "a SKIP LOCKED read left out a row that another transaction's locking statement scanned without matching it: at READ COMMITTED InnoDB releases the locks of nonmatching rows once the WHERE is evaluated, but a row just past an index range scan stayed locked; whether that is a defect is not known",
			Source: "MySQL 8.0 manual 17.7.2.1 Transaction Isolation Levels (READ COMMITTED: record locks for nonmatching rows are released after MySQL has evaluated the WHERE condition); seen on MariaDB 10.11.19: after DELETE … WHERE c0 <= 0 through an index on c0, a SKIP LOCKED read skipped the row c0 = 1 and an UPDATE of it waited (txlab campaign, 2026-11-27)",
		},
		Verdict: verdict.Suspect,
	}
	innodbSavepointReadView = Variation{
		Rule: verdict.Rule{
			Name:   "innodb-savepoint-rollback-drops-read-view",
			Text:   "after ROLLBACK TO a savepoint set before the transaction's first statement, a consistent read saw rows committed after the transaction's snapshot: the rollback ended InnoDB's part of the transaction, read view included, and the next read took a new one",
			Source: "found by txlab on MariaDB 10.11.19 (2026-11-27); REPEATABLE READ keeps one snapshot for the transaction (MySQL 8.0 manual 17.7.2.3), and ROLLBACK TO SAVEPOINT does not end the transaction (15.3.4); the cause is the server's: ha_rollback_to_savepoint (sql/handler.cc) rolls back in full every storage engine that joined the transaction after the savepoint was set, the cause MySQL Bug #95049 / #119490 show for row locks",
		},
		Verdict: verdict.Bug,
	}
	mysql110347 = Variation{
		Rule: verdict.Rule{
			Name:   "innodb-semi-consistent-skips-uncommitted-insert",
			Text:   "an UPDATE's semi-consistent read skips a row with no committed version (an uncommitted insert) without waiting",
			Source: "MySQL Bug #110347, closed Not a Bug",
		},
		Verdict: verdict.Allowed,
	}
	mdev26643 = Variation{
		Rule: verdict.Rule{
			Name:   "mdev-26643-update-skips-locked-row",
			Text:   "an UPDATE that waited skipped a row the lock holder changed to match, judging it by the version before the change (semi-consistent read)",
			Source: "MDEV-26643 (confirmed critical; fixed only with innodb_snapshot_isolation=ON); Troc, ICSE 2023, Fig. 1",
		},
		Verdict: verdict.Bug,
	}
	mysql104833 = Variation{
		Rule: verdict.Rule{
			Name:   "mysql-104833-update-skips-locked-row",
			Text:   "an UPDATE that waited skipped a row the lock holder changed to match, judging it by the version before the change (semi-consistent read)",
			Source: "MySQL Bug #104833 (Verified, serious); Troc, ICSE 2023, Fig. 1",
		},
		Verdict: verdict.Bug,
	}
	mdev39263 = Variation{
		Rule: verdict.Rule{
			Name:   "mdev-39263-snapshot-isolation-conflict-missed-after-wait",
			Text:   "with innodb_snapshot_isolation=ON, an UPDATE that waited for a row's lock while its holder changed the row and committed overwrote the row instead of failing with error 1020 (a lost update)",
			Source: "MDEV-39263 (MariaDB/server pull request 4936, merged 2026-04: ER_CHECKREAD was not returned when the record's last modifier committed during the lock acquisition)",
		},
		Verdict: verdict.Bug,
	}
	// innodbIndexMove is a suspect, not allowed: the mechanism follows from
	// documented facts, but MariaDB fixed its primary-key form at
	// repeatable read as a bug (MDEV-27992), and nothing says what it makes
	// of this form at read committed.
	innodbIndexMove = Variation{
		Rule: verdict.Rule{
			Name:   "innodb-rc-index-record-moved-during-wait",
			Text:   "a locking statement that waited for a row whose holder changed a column of a secondary index missed the row: the change delete-marked the row's index record and inserted a new one, which can land behind the statement's index scan, and without gap locks nothing stops that; MariaDB fixed the primary-key form at repeatable read as a bug (MDEV-27992), and whether it holds this form a bug is not known",
			Source: "MySQL 8.0 manual 17.3 InnoDB Multi-Versioning (Multi-Versioning and Secondary Indexes: an update of a secondary index column delete-marks the old index record and inserts a new one); MariaDB docs, InnoDB transaction isolation levels (READ COMMITTED takes no gap locks); MDEV-27992",
		},
		Verdict: verdict.Suspect,
	}
	mdev26642 = Variation{
		Rule: verdict.Rule{
			Name:   "mdev-26642-noop-update-view",
			Text:   "after an UPDATE that left a row unchanged, the transaction's reads still show its snapshot's version of the row, not the version its UPDATE matched",
			Source: "MDEV-26642 (and MDEV-26671 for a row another transaction added), confirmed critical; fixed only with innodb_snapshot_isolation=ON (10.6.18, 10.11.8)",
		},
		Verdict: verdict.Bug,
	}
	mysqlNoOp = Variation{
		Rule: verdict.Rule{
			Name:   "innodb-noop-update-writes-no-version",
			Text:   "an UPDATE that sets columns to the values they have changes nothing, so later consistent reads keep the snapshot's version",
			Source: "MySQL 8.0 manual 15.2.17 UPDATE (\"MySQL notices this and does not update it\")",
		},
		Verdict: verdict.Allowed,
	}
)

package rules

import (
	"github.com/txlab/txlab/verdict"
)

// TiDB's transaction modes (the values of its tidb_txn_mode variable and
// the words of BEGIN PESSIMISTIC / BEGIN OPTIMISTIC).
const (
	TiDBPessimistic = "pessimistic"
	TiDBOptimistic  = "optimistic"
)

// Sources of TiDB's rules: docs.pingcap.com/tidb/stable (v8.5), each page
// named by its path, with what it says that a rule below encodes.
const (
	srcTiDBBegin       = "TiDB docs, START TRANSACTION (sql-statement-start-transaction, MySQL compatibility: START TRANSACTION immediately starts a transaction and is equivalent to MySQL's START TRANSACTION WITH CONSISTENT SNAPSHOT)"
	srcTiDBMode        = "TiDB docs, Pessimistic Transaction Mode (pessimistic-transaction, Switch transaction mode: tidb_txn_mode sets the mode of explicit transactions; BEGIN PESSIMISTIC and BEGIN OPTIMISTIC take precedence over it)"
	srcTiDBPess        = "TiDB docs, Pessimistic Transaction Mode (pessimistic-transaction, Behaviors: SELECT is a snapshot read of what committed before the transaction started; UPDATE, DELETE, INSERT and SELECT FOR UPDATE are current reads of the latest committed data and lock the rows they act on; deadlock 1213, lock wait timeout 1205; Differences from MySQL InnoDB: no gap locks, data an embedded SELECT reads is not locked, LOCK IN SHARE MODE is an error unless tidb_enable_noop_functions, autocommit statements try optimistically first and may report Write Conflict)"
	srcTiDBLevel       = "TiDB docs, Transaction Isolation Levels (transaction-isolation-levels: Repeatable Read is snapshot isolation from the transaction's start, and an optimistic transaction whose row another transaction updated after its start fails to commit and rolls back; Read Committed takes effect only in pessimistic mode, optimistic transactions still use Repeatable Read; no semi-consistent read)"
	srcTiDBOpt         = "TiDB docs, Optimistic Transaction Model (optimistic-transaction: a transaction reads the snapshot of its start_ts, keeps its writes in its own memory and finds write-write conflicts only at the two-phase commit)"
	srcTiDBClustered   = "TiDB docs, Clustered Indexes (clustered-indexes: a CLUSTERED table's rows are keyed by the primary key, a NONCLUSTERED one's by a hidden _tidb_rowid; TiDB clusters only by the primary key; tidb_enable_clustered_index, ON here, decides the default); TiDB docs, Character Set and Collation (utf8mb4_bin, a binary collation, is the default)"
	srcTiDBForeignKeys = "TiDB docs, FOREIGN KEY Constraints (foreign-key, Restrictions: where the child table has no index for a foreign key, one with the foreign key's name is created automatically)"
	srcTiDBCons        = "TiDB docs, Constraints (constraints, UNIQUE KEY: optimistic transactions check unique constraints lazily, strictly at commit, unless tidb_constraint_check_in_place=ON; pessimistic ones when the statement runs)"
)

var (
	// tidbUncommittedInsert: a pessimistic DML statement reads the
	// latest *committed* data; a row another transaction inserted and has
	// not committed is not data it reads, so it neither sees the row nor
	// waits for it (a Point Get at repeatable read locks the key it looks
	// for even when it finds nothing, and then does wait: waiting stays
	// permitted).
	tidbUncommittedInsert = Variation{
		Rule: verdict.Rule{
			Name:   "tidb-current-read-skips-uncommitted-insert",
			Text:   "a pessimistic UPDATE, DELETE or SELECT FOR UPDATE reads the latest committed data and locks the rows it finds: a row another transaction inserted and has not committed is neither seen nor waited for",
			Source: srcTiDBPess + "; the Point Get note there (at repeatable read a Point Get locks a key it does not find)",
		},
		Verdict: verdict.Allowed,
	}
	// tidbUncommittedChange: the same reading for a row another
	// transaction changed and has not committed: the statement reads its
	// committed version, and when that does not match, the row is not one
	// it acts on, so it neither locks nor changes it, even when the
	// statement waits for other rows until the change commits.
	tidbUncommittedChange = Variation{
		Rule: verdict.Rule{
			Name:   "tidb-current-read-skips-uncommitted-change",
			Text:   "a pessimistic UPDATE, DELETE or SELECT FOR UPDATE reads the latest committed data and locks the rows it finds: a row whose committed version does not match, which another transaction's uncommitted change makes match, is neither waited for nor changed, even when the statement waits for other rows until that change commits",
			Source: srcTiDBPess,
		},
		Verdict: verdict.Allowed,
	}
	// tidbAutocommitOptimistic: autocommit statements run optimistically
	// first, and an optimistic statement takes no lock while it runs and
	// writes (and so meets others' locks at commit) only the rows it
	// changes.
	tidbAutocommitOptimistic = Variation{
		Rule: verdict.Rule{
			Name:   "tidb-autocommit-optimistic-first",
			Text:   "an autocommit statement first runs as an optimistic transaction: it takes no locks while it runs, so an autocommit UPDATE waits only for a locked row it changes and an autocommit SELECT FOR UPDATE waits for none",
			Source: srcTiDBPess + "; " + srcTiDBOpt,
		},
		Verdict: verdict.Allowed,
	}
	// tidb57170: unistore, the embedded storage of a tidb-server without
	// TiKV (txlab's throwaway TiDB), reads a key's latest committed
	// version in a reverse scan, whatever the read timestamp.
	tidb57170 = Variation{
		Rule: verdict.Rule{
			Name:   "tidb-57170-unistore-reverse-scan",
			Text:   "a SELECT that may scan an index backwards (ORDER BY … DESC, MAX) read rows' latest committed versions instead of its snapshot's: unistore, the embedded storage this TiDB runs on, ignores the read timestamp in a reverse scan",
			Source: "pingcap/tidb#57170 (\"unistore:\", open, type/bug, filed by a TiDB maintainer: MAX() in a repeatable-read transaction sees a row committed after its start, on the mock store); pingcap/tidb#30361 (open, type/bug: ORDER BY … DESC in a transaction on a tidb-server with its default store)",
		},
		Verdict: verdict.Bug,
	}
	// tidb45677: TiDB evaluates an uncorrelated subquery while it plans
	// the statement, at the transaction's start_ts, so in a pessimistic
	// REPEATABLE READ transaction a DML statement's (or locking read's)
	// subquery reads the snapshot while the statement itself reads the
	// latest committed data (a correlated subquery, joined at execution,
	// reads the latest).
	tidb45677 = Variation{
		Rule: verdict.Rule{
			Name:   "tidb-45677-dml-subquery-snapshot",
			Text:   "a subquery of a pessimistic UPDATE, DELETE or SELECT FOR UPDATE read the transaction's snapshot, not the latest committed data the statement reads (an uncorrelated subquery is evaluated while the statement is planned, at the transaction's start_ts)",
			Source: "pingcap/tidb#45677 (\"Update with sub query uses snapshot read in RR isolation level\", open, type/bug); TiDB docs, Pessimistic Transaction Mode (UPDATE, DELETE, INSERT and SELECT FOR UPDATE read the latest committed data)",
		},
		Verdict: verdict.Bug,
	}
	// tidb28212 is TiDB's form of MDEV-26642: an UPDATE that matched a
	// row (in its latest committed version, a current read) but changed
	// none of its values writes nothing to the transaction's buffer, so
	// the transaction's later snapshot reads still show the version of
	// its start.
	tidb28212 = Variation{
		Rule: verdict.Rule{
			Name:   "tidb-28212-noop-update-view",
			Text:   "after an UPDATE that matched a row and left its values as they were, the transaction's reads still show its snapshot's version of the row, not the latest committed version its UPDATE matched",
			Source: "pingcap/tidb#28212 (open, labelled type/bug; Troc, ICSE 2023, lists it verified); the same shape as pingcap/tidb#64888 (v8.5.4, open, type/bug) and #21447",
		},
		Verdict: verdict.Bug,
	}
)

package troc_test

import (
	"testing"

	"github.com/txlab/txlab/target"
)

// TestMergeCorpus: the corpus's documented behaviours of PostgreSQL's MERGE
// (bugs/doc-pg-merge-*.txn: the clauses' order, the READ COMMITTED
// re-check from the first clause and to the NOT MATCHED clauses, DO
// NOTHING without a lock, the actions' lock strengths, the source's
// snapshot, REPEATABLE READ's serialization failure), run on the live
// server, are judged to their end with no finding, at READ COMMITTED and
// REPEATABLE READ (where the re-checks fail with 40001, which the model
// does not judge).
func TestMergeCorpus(t *testing.T) {
	rc, rr := target.ReadCommitted, target.RepeatableRead
	judgedToEnd(t, "postgres", []target.Level{rc, rr},
		"doc-pg-merge-clause-order.txn", "doc-pg-merge-recheck-first-clause.txn", "doc-pg-merge-recheck-not-matched.txn",
		"doc-pg-merge-recheck-deleted.txn", "doc-pg-merge-recheck-subquery.txn", "doc-pg-merge-do-nothing-no-lock.txn",
		"doc-pg-merge-lock-strength.txn", "doc-pg-merge-source-snapshot.txn")
	judgedToEnd(t, "postgres", []target.Level{rr}, "doc-pg-merge-rr-changed-row.txn")
}

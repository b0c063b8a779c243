package troc_test

import (
	"testing"

	"github.com/txlab/txlab/target"
)

// TestKeyLockCorpus: the corpus's cases of PostgreSQL's row lock strengths
// (FOR KEY SHARE, FOR NO KEY UPDATE, with SKIP LOCKED and NOWAIT) and
// table locks (LOCK TABLE, with NOWAIT and a savepoint) run on a
// real server and are judged to their end with no finding, at every level
// where they have a lock to show.
func TestKeyLockCorpus(t *testing.T) {
	judgedToEnd(t, "postgres", []target.Level{target.ReadCommitted, target.RepeatableRead, target.Serializable},
		"doc-pg-key-share-no-key-update.txn", "doc-pg-key-update-waits-key-share.txn", "doc-pg-row-lock-strength-wait-policy.txn",
		"doc-pg-lock-table-modes.txn", "doc-pg-lock-table-savepoint.txn", "doc-pg-lock-table-wait.txn", "doc-pg-skip-locked-waiter.txn", "doc-pg-key-share-own-row.txn", "doc-pg-skip-locked-recheck.txn")
}

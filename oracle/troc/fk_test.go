package troc_test

import (
	"testing"

	"github.com/txlab/txlab/target"
)

// TestForeignKeyCorpus: the corpus's documented behaviours of
// PostgreSQL's foreign keys (the check's FOR KEY SHARE lock on the parent
// row, a parent DELETE's check with the latest snapshot, a child's check
// with the transaction's at repeatable read, CASCADE and SET NULL, a
// deferred key's check at COMMIT) are judged by the model to
// their end, with no finding, on PostgreSQL at every level.
func TestForeignKeyCorpus(t *testing.T) {
	judgedToEnd(t, "postgres", []target.Level{target.ReadUncommitted, target.ReadCommitted, target.RepeatableRead, target.Serializable},
		"doc-pg-fk-key-share.txn", "doc-pg-fk-restrict-sees-new-child.txn", "doc-pg-fk-rr-parent-updated.txn", "doc-pg-fk-rr-parent-deleted.txn", "doc-pg-fk-cascade-locks.txn", "doc-pg-fk-deferred-commit.txn")
}

// TestSQLiteForeignKeyCorpus: SQLite's documented foreign key behaviours
// (the check against the writer's own parent row, CASCADE and SET NULL
// within the parent's statement, deferred keys at COMMIT) are judged by
// the model to their end, with no finding.
func TestSQLiteForeignKeyCorpus(t *testing.T) {
	judgedToEnd(t, "sqlite", nil, "doc-sqlite-fk-own-parent.txn", "doc-sqlite-fk-cascade.txn", "doc-sqlite-fk-deferred.txn")
}

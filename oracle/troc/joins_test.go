package troc_test

import (
	"testing"

	"github.com/txlab/txlab/target"
)

// TestJoinCorpus: the corpus's documented behaviours of writes across
// tables (InnoDB's multiple-table UPDATE and DELETE, PostgreSQL's UPDATE …
// FROM and DELETE … USING), run on the live servers, are judged to their
// end with no finding.
func TestJoinCorpus(t *testing.T) {
	t.Run("mariadb", func(t *testing.T) {
		judgedToEnd(t, "mariadb", []target.Level{target.ReadCommitted, target.RepeatableRead},
			"doc-innodb-join-current-read.txn", "doc-innodb-join-share-lock.txn", "doc-innodb-join-no-semi-consistent.txn", "doc-innodb-join-skip-locked.txn", "doc-innodb-join-two-tables.txn")
	})
	t.Run("postgres", func(t *testing.T) {
		judgedToEnd(t, "postgres", []target.Level{target.ReadCommitted, target.RepeatableRead},
			"doc-pg-update-from-recheck.txn", "doc-pg-update-from-join-key-changed.txn", "doc-pg-delete-using-snapshot.txn")
	})
}

// TestInnoDBRewrittenDuringWait: a DELETE that waited on a row whose
// deleter let go, which a third transaction then inserted again behind the
// DELETE's scan, is judged to its end with no finding (the row may be read
// as the deleter left it: READ COMMITTED takes no gap locks). A 10-minute
// campaign found it as a false troc `bug`.
func TestInnoDBRewrittenDuringWait(t *testing.T) {
	judgedToEnd(t, "mariadb", []target.Level{target.ReadCommitted}, "doc-innodb-rc-rewritten-during-wait.txn")
}

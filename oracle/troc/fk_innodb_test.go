package troc_test

import (
	"testing"

	"github.com/txlab/txlab/target"
)

// TestInnoDBForeignKeyCorpus: the corpus's documented InnoDB foreign key
// behaviours, run on MariaDB at READ COMMITTED and REPEATABLE READ, are
// judged to their end with no finding (the model follows a child's
// UPDATE check, a parent's RESTRICT check, CASCADE and SET NULL:
// semantics/model/fk_immediate.go).
func TestInnoDBForeignKeyCorpus(t *testing.T) {
	judgedToEnd(t, "mariadb", []target.Level{target.ReadCommitted, target.RepeatableRead},
		"doc-innodb-fk-parent-shared-lock.txn", "doc-innodb-fk-child-update-lock.txn", "doc-innodb-fk-restrict.txn", "doc-innodb-fk-cascade.txn", "doc-innodb-fk-replace-parent.txn", "doc-innodb-fk-restrict-waits.txn")
}

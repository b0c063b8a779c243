package troc_test

import (
	"testing"
)

// TestSchemaFeatureCorpus: the corpus's documented behaviours with schema
// features (a partial unique index two transactions insert under, a
// generated column an UPDATE re-checks after its wait) are judged by the
// model to their end, with no finding, on PostgreSQL at their level.
func TestSchemaFeatureCorpus(t *testing.T) {
	judgedToEnd(t, "postgres", nil, "doc-pg-partial-unique-wait-commit.txn", "doc-pg-partial-unique-wait-rollback.txn", "doc-pg-rc-generated-recheck.txn")
}

package troc_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle/troc"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestForeignKeyCorpus: the corpus's documented behaviours of
// PostgreSQL's foreign keys (the check's FOR KEY SHARE lock on the parent
// row, a parent DELETE's check with the latest snapshot, a child's check
// with the transaction's at repeatable read, CASCADE and SET NULL, a
// deferred key's check at COMMIT) are judged by the model to
// their end, with no finding, on PostgreSQL at every level.
func TestForeignKeyCorpus(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	ctx := context.Background()
	set, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Checker{Settings: set}
	defer m.Close()
	o := &troc.Oracle{Model: m}
	for _, f := range []string{"doc-pg-fk-key-share.txn", "doc-pg-fk-restrict-sees-new-child.txn", "doc-pg-fk-rr-parent-updated.txn", "doc-pg-fk-rr-parent-deleted.txn", "doc-pg-fk-cascade-locks.txn", "doc-pg-fk-deferred-commit.txn"} {
		for _, level := range []target.Level{target.ReadUncommitted, target.ReadCommitted, target.RepeatableRead, target.Serializable} {
			t.Run(f+"/"+string(level), func(t *testing.T) {
				c, err := testcase.ParseFile(filepath.Join("..", "..", "bugs", f))
				if err != nil {
					t.Fatal(err)
				}
				c.Isolation = level
				res, err := executor.Run(ctx, tg, c, executor.Options{})
				if err != nil {
					t.Fatal(err)
				}
				j, err := o.Check(ctx, tg, c, res, executor.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if j.Undecided != "" || len(j.Findings) != 0 {
					var b strings.Builder
					res.WriteSchedule(&b)
					t.Errorf("undecided %q, findings %v; want judged to the end with none\n%s", j.Undecided, j.Findings, b.String())
				}
			})
		}
	}
}

// TestSQLiteForeignKeyCorpus: SQLite's documented foreign key behaviours
// (the check against the writer's own parent row, CASCADE and SET NULL
// within the parent's statement, deferred keys at COMMIT) are judged by
// the model to their end, with no finding.
func TestSQLiteForeignKeyCorpus(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx := context.Background()
	set, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Checker{Settings: set}
	defer m.Close()
	o := &troc.Oracle{Model: m}
	for _, f := range []string{"doc-sqlite-fk-own-parent.txn", "doc-sqlite-fk-cascade.txn", "doc-sqlite-fk-deferred.txn"} {
		t.Run(f, func(t *testing.T) {
			c, err := testcase.ParseFile(filepath.Join("..", "..", "bugs", f))
			if err != nil {
				t.Fatal(err)
			}
			res, err := executor.Run(ctx, tg, c, executor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			j, err := o.Check(ctx, tg, c, res, executor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if j.Undecided != "" || len(j.Findings) != 0 {
				var b strings.Builder
				res.WriteSchedule(&b)
				t.Errorf("undecided %q, findings %v; want judged to the end with none\n%s", j.Undecided, j.Findings, b.String())
			}
		})
	}
}

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

// TestInnoDBForeignKeyCorpus: the corpus's documented InnoDB foreign key
// behaviours, run on MariaDB at READ COMMITTED and REPEATABLE READ, are
// judged to their end with no finding (the model follows a child's
// UPDATE check, a parent's RESTRICT check, CASCADE and SET NULL:
// semantics/model/fk_innodb.go).
func TestInnoDBForeignKeyCorpus(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	ctx := context.Background()
	set, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Checker{Settings: set}
	defer m.Close()
	o := &troc.Oracle{Model: m}
	for _, f := range []string{"doc-innodb-fk-parent-shared-lock.txn", "doc-innodb-fk-child-update-lock.txn", "doc-innodb-fk-restrict.txn", "doc-innodb-fk-cascade.txn", "doc-innodb-fk-replace-parent.txn", "doc-innodb-fk-restrict-waits.txn"} {
		for _, level := range []target.Level{target.ReadCommitted, target.RepeatableRead} {
			t.Run(f+"/"+string(level), func(t *testing.T) {
				c, err := testcase.ParseFile(filepath.Join("..", "..", "bugs", f))
				if err != nil {
					t.Fatal(err)
				}
				opts := executor.Options{Isolation: level}
				res, err := executor.Run(ctx, tg, c, opts)
				if err != nil {
					t.Fatal(err)
				}
				j, err := o.Check(ctx, tg, c, res, opts)
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

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
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestSchemaFeatureCorpus: the corpus's documented behaviours with schema
// features (a partial unique index two transactions insert under, a
// generated column an UPDATE re-checks after its wait) are judged by the
// model to their end, with no finding, on PostgreSQL at their level.
func TestSchemaFeatureCorpus(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	ctx := context.Background()
	set, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Checker{Settings: set}
	defer m.Close()
	o := &troc.Oracle{Model: m}
	for _, f := range []string{"doc-pg-partial-unique-wait-commit.txn", "doc-pg-partial-unique-wait-rollback.txn", "doc-pg-rc-generated-recheck.txn"} {
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

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

// TestKeyLockCorpus: the corpus's cases of PostgreSQL's row lock strengths
// (FOR KEY SHARE, FOR NO KEY UPDATE, with SKIP LOCKED and NOWAIT) and
// table locks (LOCK TABLE, with NOWAIT and a savepoint) run on a
// real server and are judged to their end with no finding, at every level
// where they have a lock to show.
func TestKeyLockCorpus(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	ctx := context.Background()
	set, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Checker{Settings: set}
	defer m.Close()
	o := &troc.Oracle{Model: m}
	for _, file := range []string{"doc-pg-key-share-no-key-update.txn", "doc-pg-key-update-waits-key-share.txn", "doc-pg-row-lock-strength-wait-policy.txn",
		"doc-pg-lock-table-modes.txn", "doc-pg-lock-table-savepoint.txn", "doc-pg-lock-table-wait.txn", "doc-pg-skip-locked-waiter.txn", "doc-pg-key-share-own-row.txn", "doc-pg-skip-locked-recheck.txn"} {
		c, err := testcase.ParseFile(filepath.Join("..", "..", "bugs", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, level := range []target.Level{target.ReadCommitted, target.RepeatableRead, target.Serializable} {
			t.Run(file+"/"+string(level), func(t *testing.T) {
				opt := executor.Options{Isolation: level}
				res, err := executor.Run(ctx, tg, c, opt)
				if err != nil {
					t.Fatal(err)
				}
				j, err := o.Check(ctx, tg, c, res, opt)
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

package wss

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

// TestReleasedTogether: a DELETE and an INSERT released by one ROLLBACK are
// recorded in connection order (DELETE first) while the server ran the
// INSERT first (it failed on the duplicate key; the DELETE then removed the
// row). Marked concurrent, as the executor marks statements one release
// resumes, the INSERT-first order is FCRFS too: no finding. Unmarked, the
// recorded order is taken as the order: a finding.
func TestReleasedTogether(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	c, err := testcase.ParseFile(filepath.Join("testdata", "released-together.txn"))
	if err != nil {
		t.Fatal(err)
	}
	step := func(i int, st executor.Status) executor.Event {
		return executor.Event{Conn: c.Steps[i].Conn, SQL: c.Steps[i].SQL, Step: i, Status: st, Affected: -1}
	}
	recorded := func(group int) *executor.Result {
		del, ins := step(2, executor.StatusOK), step(3, executor.StatusError)
		del.Resumed, del.Affected, del.Concurrent = true, 1, group
		ins.Resumed, ins.Concurrent = true, group
		ins.Error = &target.Error{Class: target.ClassDuplicateKey}
		return &executor.Result{
			Events: []executor.Event{
				step(0, executor.StatusOK), step(1, executor.StatusOK),
				step(2, executor.StatusBlocked), step(3, executor.StatusBlocked),
				step(4, executor.StatusOK), del, ins,
			},
			Final:  target.State{"t": nil},
			Levels: map[int]target.Level{1: target.ReadCommitted, 2: target.ReadCommitted, 3: target.ReadCommitted},
		}
	}
	for _, tt := range []struct {
		group    int
		findings bool
	}{{1, false}, {0, true}} {
		o, err := CheckExecution(context.Background(), tg, c, recorded(tt.group), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(o.Findings) > 0; got != tt.findings {
			t.Errorf("concurrent group %d: findings %+v, want any: %v", tt.group, o.Findings, tt.findings)
		}
	}
}

package executor

import (
	"testing"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// TestMayLock: the statements after which the executor asks whether a
// deadlock victim's error is on its way.
func TestMayLock(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		level target.Level
		want  bool
	}{
		{"UPDATE t SET v = 1", target.ReadCommitted, true},
		{"insert into t values (1)", "", true},
		{"DELETE FROM t", target.RepeatableRead, true},
		{"SELECT * FROM t WHERE k = 1 FOR UPDATE", target.ReadCommitted, true},
		{"SELECT * FROM t FOR NO KEY UPDATE", target.ReadCommitted, true},
		{"SELECT * FROM t for share", target.RepeatableRead, true},
		{"SELECT * FROM t LOCK IN SHARE MODE", target.RepeatableRead, true},
		{"SELECT * FROM t", target.Serializable, true},
		{"SELECT * FROM t", target.RepeatableRead, false},
		{"SELECT 'FOR UPDATE' AS x FROM t", target.ReadCommitted, true}, // a literal counts: asking is only slower
		{"SELECT * FROM t", "", false},
		{"COMMIT", target.ReadCommitted, false},
		{"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", target.ReadCommitted, true},
		{"WITH d AS (SELECT * FROM t) SELECT * FROM d", target.ReadCommitted, false},
	} {
		if got := mayLock(testcase.Classify(tc.sql), tc.level); got != tc.want {
			t.Errorf("mayLock(%q, %q) = %v, want %v", tc.sql, tc.level, got, tc.want)
		}
	}
}

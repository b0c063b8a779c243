package instrument

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/target"
)

// testStress runs a short stress history on tg and checks what must hold
// on any correct DBMS: the history reads back, every session's transactions
// are recorded with monotonic times, the final read is last, and every
// writer in a final wList committed (a rolled-back write that survived
// would be a real bug, G1a).
func testStress(t *testing.T, tg target.Target) {
	t.Helper()
	const sessions, per = 3, 12
	h, err := Stress(context.Background(), tg, StressConfig{Sessions: sessions, Duration: time.Minute, MaxTxns: per, Seed: 7, ReadEvery: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(h.Txns), 1+sessions*per+1; got != want {
		t.Fatalf("%d transactions recorded, want %d", got, want)
	}
	var sb strings.Builder
	if err := history.Write(&sb, h); err != nil {
		t.Fatal(err)
	}
	if _, err := history.Read(strings.NewReader(sb.String())); err != nil {
		t.Fatalf("stress history does not read back: %v", err)
	}
	status := map[int64]history.Status{}
	writes := 0
	for _, tx := range h.Txns {
		status[tx.ID] = tx.Status
		if !tx.Init && (tx.Start <= 0 || tx.End < tx.Start) {
			t.Errorf("T%d: start %d end %d", tx.ID, tx.Start, tx.End)
		}
		for _, s := range tx.Stmts {
			if s.Kind != "SELECT" && len(s.Sent) > 0 && s.Error == "" {
				writes++
			}
		}
	}
	if writes == 0 {
		t.Errorf("no instrumented write succeeded in %d transactions", len(h.Txns))
	}
	final := h.Txns[len(h.Txns)-1]
	if final.Status != history.OK || len(final.Stmts) == 0 {
		t.Fatalf("final read T%d: status %s, %d statements", final.ID, final.Status, len(final.Stmts))
	}
	rows := map[string]bool{}
	for _, s := range final.Stmts {
		// A full read keeps its values, one row per version, so a finding's
		// case can start from them; its SQL is the plain read.
		if s.Table == "" || len(s.Columns) == 0 || len(s.Rows) != len(s.Reads) || strings.Contains(s.SQL, HiddenPrefix) {
			t.Errorf("final read %q: table %q, columns %v, %d rows for %d versions", s.SQL, s.Table, s.Columns, len(s.Rows), len(s.Reads))
		}
		for _, r := range s.Rows {
			if len(r) != len(s.Columns) {
				t.Errorf("final read of %s: row %v for columns %v", s.Table, r, s.Columns)
			}
		}
		for _, v := range s.Reads {
			if rows[v.Row] {
				t.Errorf("rowId %s read twice in the final read", v.Row)
			}
			rows[v.Row] = true
			ids, err := v.Writers()
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if status[id] != history.OK {
					t.Errorf("row %s (wList %s): T%d did not commit (%s) but its write is visible", v.Row, v.WList, id, status[id])
				}
			}
		}
	}
}

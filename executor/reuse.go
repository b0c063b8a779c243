package executor

import (
	"context"
	"slices"
	"strings"

	"github.com/txlab/txlab/target"
)

// setupMemo is what the last successful Prepare on a target created.
type setupMemo struct {
	schema []string // the setup's schema statements (all but row statements), in order
	events []Event  // their events, in order
	tables []string // the tables that existed after it, sorted
}

// schemaStatements returns the statements of stmts that may change a
// table's definition, in order.
func schemaStatements(stmts []string) []string {
	var out []string
	for _, s := range stmts {
		if !target.KeepsDefinitions(s) {
			out = append(out, s)
		}
	}
	return out
}

// ForgetSetup makes the next Prepare on t drop and re-create its tables;
// callers that change txlab's tables outside Prepare and Run call it.
func ForgetSetup(t target.Target) {
	if m := memoOf(t); m != nil {
		m.Take()
	}
}

// memoOf returns t's slot for the note of its last setup (nil: no reuse).
// The note is taken out before anything may change the tables'
// definitions (a Prepare that starts over, steps with a schema statement,
// a Reset).
func memoOf(t target.Target) *target.Memo {
	if e, ok := target.As[target.Emptier](t); ok {
		return e.SetupMemo()
	}
	return nil
}

// rememberSetup records a successful setup of t for reuseSetup.
func rememberSetup(ctx context.Context, t target.Target, stmts []string, evs []Event) {
	slot := memoOf(t)
	if slot == nil {
		return
	}
	for _, s := range schemaStatements(stmts) {
		if !createsTableOrIndex(s) {
			return // a sequence, view or routine: TRUNCATE would not restore it
		}
	}
	e, _ := target.As[target.Emptier](t)
	tables, err := e.Tables(ctx)
	if err != nil {
		return
	}
	m := &setupMemo{schema: schemaStatements(stmts), tables: tables}
	for i, s := range stmts {
		if !target.KeepsDefinitions(s) {
			m.events = append(m.events, evs[i])
		}
	}
	slot.Put(m)
}

// reuseSetup empties t's tables and runs stmts' row statements when stmts'
// schema statements are those of t's last setup and the same tables exist.
// It reports false, having removed the memo, whenever it cannot: the
// caller then starts over. A failed row statement is reported like the
// slow path does, as a *SetupError among the events.
func reuseSetup(ctx context.Context, t target.Target, stmts []string) ([]Event, bool) {
	slot := memoOf(t)
	if slot == nil {
		return nil, false
	}
	m, ok := slot.Take().(*setupMemo)
	if !ok {
		return nil, false
	}
	if !slices.Equal(m.schema, schemaStatements(stmts)) {
		return nil, false
	}
	e, _ := target.As[target.Emptier](t)
	tables, err := e.Empty(ctx)
	if err != nil || !slices.Equal(tables, m.tables) {
		return nil, false
	}
	s, err := t.Open(ctx)
	if err != nil {
		return nil, false
	}
	defer s.Close()
	evs := make([]Event, 0, len(stmts))
	next := 0
	for i, sql := range stmts {
		if !target.KeepsDefinitions(sql) {
			ev := m.events[next]
			ev.Step = i
			next++
			evs = append(evs, ev)
			continue
		}
		out, err := s.Exec(ctx, sql)
		ev := Event{Conn: 0, SQL: sql, Step: i, Affected: -1}
		fill(&ev, out, err)
		evs = append(evs, ev)
		if err != nil {
			return nil, false
		}
	}
	slot.Put(m)
	return evs, true
}

// createsTableOrIndex reports whether a schema statement creates a table
// or an index: the only objects that emptying the tables returns to the
// state the statement left them in (a sequence keeps its position, a
// view or routine may keep state of its own).
func createsTableOrIndex(sql string) bool {
	f := strings.Fields(strings.ToUpper(sql))
	if len(f) < 2 || f[0] != "CREATE" {
		return false
	}
	switch f[1] {
	case "TABLE", "INDEX":
		return true
	case "UNIQUE":
		return len(f) > 2 && f[2] == "INDEX"
	}
	return false
}

package executor

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/txlab/txlab/target"
)

// setupMemo is what the last successful Prepare on a bench created.
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

// Bench is a worker's target with the executor's note of the last setup
// on it: whoever opens a target for a worker (the command layer, the
// campaign loop, an oracle's sibling schema) puts it on a bench of its own,
// and the executor reuses the tables of a case whose setup is the same as
// the previous one's (see Prepare). The note is taken out before anything
// may change the tables' definitions (a Prepare that starts over, steps
// with a schema statement, a Reset through the bench). Everything that
// runs on the target goes through the bench; a target without one never
// reuses its tables.
type Bench struct {
	target.Target
	// mu stays although a bench serves one worker: a run that a frozen
	// server cut off (Watch leaves it to end by itself) may still note its
	// setup while the worker closes.
	mu   sync.Mutex
	note *setupMemo
}

// NewBench puts t on a bench of its own; t itself when it is one already.
func NewBench(t target.Target) *Bench {
	if b, ok := t.(*Bench); ok {
		return b
	}
	return &Bench{Target: t}
}

// Unwrap implements target.Wrapper.
func (b *Bench) Unwrap() target.Target { return b.Target }

// Reset implements target.Target: it forgets the setup, then resets.
func (b *Bench) Reset(ctx context.Context) error {
	b.take()
	return b.Target.Reset(ctx)
}

func (b *Bench) take() *setupMemo {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.note
	b.note = nil
	return m
}

func (b *Bench) put(m *setupMemo) {
	b.mu.Lock()
	b.note = m
	b.mu.Unlock()
}

// ForgetSetup makes the next Prepare on t drop and re-create its tables;
// callers that change txlab's tables outside Prepare and Run call it.
func ForgetSetup(t target.Target) {
	if b := benchOf(t); b != nil {
		b.take()
	}
}

// benchOf returns t's bench, nil when there is none or t cannot empty its
// tables (no reuse).
func benchOf(t target.Target) *Bench {
	b, ok := target.As[*Bench](t)
	if !ok {
		return nil
	}
	if e, ok := target.As[target.Emptier](b.Target); !ok || !e.CanEmpty() {
		return nil
	}
	return b
}

// rememberSetup records a successful setup of t for reuseSetup.
func rememberSetup(ctx context.Context, t target.Target, stmts []string, evs []Event) {
	slot := benchOf(t)
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
	slot.put(m)
}

// reuseSetup empties t's tables and runs stmts' row statements when stmts'
// schema statements are those of t's last setup and the same tables exist.
// It reports false, having removed the memo, whenever it cannot: the
// caller then starts over. A failed row statement is reported like the
// slow path does, as a *SetupError among the events.
func reuseSetup(ctx context.Context, t target.Target, stmts []string) ([]Event, bool) {
	slot := benchOf(t)
	if slot == nil {
		return nil, false
	}
	m := slot.take()
	if m == nil {
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
	slot.put(m)
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

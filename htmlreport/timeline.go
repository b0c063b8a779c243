package htmlreport

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/testcase"
)

// timeline draws events (in the order the DBMS completed them) as a grid a
// person reads without hovering: a column per connection, a row per event,
// each statement's text and outcome in its connection's column. A
// statement that waited shows, where it blocked, what released it (the
// COMMIT or ROLLBACK just before it resumed); the rows in between shade its
// column. Commits, rollbacks and errors are marked by class and symbol. The
// statement a finding is about (focus, 0-based step, on connection
// focusConn; -1 none) is outlined where it completed.
func timeline(evs []executor.Event, focus, focusConn int) string {
	var conns []int
	for _, ev := range evs {
		if !slices.Contains(conns, ev.Conn) {
			conns = append(conns, ev.Conn)
		}
	}
	slices.Sort(conns)
	// waiting[i][conn]: conn is blocked while event i completes.
	waiting := make([]map[int]bool, len(evs))
	released := map[int]string{} // blocked event → what released it
	for i, ev := range evs {
		if ev.Status != executor.StatusBlocked {
			continue
		}
		end := len(evs)
		for j := i + 1; j < len(evs); j++ {
			if evs[j].Conn == ev.Conn && evs[j].Resumed {
				end = j
				break
			}
		}
		for j := i + 1; j < end; j++ {
			if waiting[j] == nil {
				waiting[j] = map[int]bool{}
			}
			waiting[j][ev.Conn] = true
		}
		released[i] = releaseOf(evs, i, end)
	}
	var b strings.Builder
	b.WriteString(`<table class="timeline"><thead><tr><th class="n">#</th>`)
	for _, c := range conns {
		fmt.Fprintf(&b, `<th>connection %d</th>`, c)
	}
	b.WriteString(`</tr></thead><tbody>`)
	for i, ev := range evs {
		fmt.Fprintf(&b, `<tr><td class="n">%d</td>`, i+1)
		for _, c := range conns {
			switch {
			case c == ev.Conn:
				class := markClass(ev)
				if ev.Step == focus && ev.Conn == focusConn && !ev.Added && ev.Status != executor.StatusBlocked {
					class += " focus"
				}
				fmt.Fprintf(&b, `<td class="ev %s"><span class="sym">%s</span> <code>%s</code><div class="outcome">%s</div>`,
					class, symbol(class), html.EscapeString(oneLine(ev.SQL)), html.EscapeString(executor.Outcome(ev)))
				if r, ok := released[i]; ok {
					fmt.Fprintf(&b, `<div class="wait">%s</div>`, html.EscapeString(r))
				}
				b.WriteString(`</td>`)
			case waiting[i][c]:
				b.WriteString(`<td class="waiting">waiting</td>`)
			default:
				b.WriteString(`<td></td>`)
			}
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return b.String()
}

// releaseOf says what ended the wait of blocked event i, which resumed at
// event end (len(evs): never): the last COMMIT or ROLLBACK of another
// connection before it, if any.
func releaseOf(evs []executor.Event, i, end int) string {
	if end == len(evs) {
		return "waits until the end of the case: never resumed"
	}
	for j := end - 1; j > i; j-- {
		ev := evs[j]
		if ev.Conn == evs[i].Conn || ev.Status != executor.StatusOK {
			continue
		}
		switch ev.Kind.For(ev.SQL).Control {
		case testcase.Commit, testcase.Rollback:
			return fmt.Sprintf("waits for a lock; resumes (#%d) after connection %d's %s (#%d)", end+1, ev.Conn, oneLine(ev.SQL), j+1)
		}
	}
	return fmt.Sprintf("waits for a lock; resumes at #%d", end+1)
}

// symbol marks an event's class for a reader who does not see colour.
func symbol(class string) string {
	switch class {
	case "commit":
		return "✔"
	case "abort":
		return "↶"
	case "error":
		return "✖"
	case "blocked":
		return "‖"
	case "resumed":
		return "▶"
	case "skipped":
		return "–"
	}
	return "•"
}

// markClass is an event's CSS class: commit, abort (a ROLLBACK, the
// executor's own included), error, blocked, resumed, skipped or ok.
func markClass(ev executor.Event) string {
	switch {
	case ev.Status == executor.StatusBlocked:
		return "blocked"
	case ev.Status == executor.StatusSkipped:
		return "skipped"
	case ev.Status == executor.StatusError:
		return "error"
	}
	switch ev.Kind.For(ev.SQL).Control {
	case testcase.Commit:
		return "commit"
	case testcase.Rollback:
		return "abort"
	}
	if ev.Resumed {
		return "resumed"
	}
	return "ok"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

package executor

import (
	"fmt"
	"io"
	"strings"

	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/target"
)

// maxShownRows bounds the rows printed per statement in the text schedule.
const maxShownRows = 10

// WriteSchedule prints the actual schedule, one event per line, as
// `N> SQL;  OUTCOME`, in the order the DBMS completed the statements;
// statements one COMMIT or ROLLBACK released together say so; a statement
// an oracle rewrote is followed by what it sent. The statements and
// outcomes (values, server messages) are printed terminal-safe (termsafe).
func (r *Result) WriteSchedule(w io.Writer) {
	width := 0
	for _, ev := range r.Events {
		if n := len(safeLine(ev.SQL)) + 1; n > width && n <= 70 {
			width = n
		}
	}
	for _, ev := range r.Events {
		prefix := fmt.Sprintf("%d>", ev.Conn)
		together := ""
		if ev.Concurrent != 0 {
			// Released by one COMMIT/ROLLBACK: their order is the server's.
			together = fmt.Sprintf("  [released together: group %d]", ev.Concurrent)
		}
		fmt.Fprintf(w, "  %-3s %-*s  %s%s\n", prefix, width, safeLine(ev.SQL)+";", termsafe.Line(Outcome(ev)), together)
		if ev.Sent != "" && ev.Status != StatusBlocked {
			fmt.Fprintf(w, "        sent: %s\n", safeLine(ev.Sent))
		}
	}
	if r.Hang {
		fmt.Fprintf(w, "  HANG: the case did not finish in time; the statements above are all that completed\n")
	}
}

// Outcome describes one event in a few words: "ok, 2 rows: (1, a) (2, b)",
// "BLOCKED", "RESUMED error deadlock (1213: ...)", "SKIPPED".
func Outcome(ev Event) string {
	var b strings.Builder
	switch ev.Status {
	case StatusBlocked:
		b.WriteString("BLOCKED")
		if ev.ByTimeout {
			b.WriteString(" (by timeout)")
		}
		return b.String()
	case StatusSkipped:
		return "SKIPPED (transaction aborted)"
	}
	if ev.Resumed {
		b.WriteString("RESUMED ")
	}
	if ev.Implicit {
		b.WriteString("(sent by txlab) ")
	}
	if ev.Added {
		b.WriteString("(added by txlab) ")
	}
	if ev.Status == StatusError {
		e := ev.Error
		fmt.Fprintf(&b, "error %s", e.Class)
		if e.Code != "" {
			fmt.Fprintf(&b, " (%s: %s)", e.Code, oneLine(e.Message))
		} else {
			fmt.Fprintf(&b, " (%s)", oneLine(e.Message))
		}
		return b.String()
	}
	b.WriteString("ok")
	switch {
	case ev.Rows != nil && ev.Truncated > 0:
		n := int64(len(ev.Rows)) + ev.Truncated
		fmt.Fprintf(&b, ", %d row%s (txlab kept the first %d)", n, english.S(int(n)), len(ev.Rows))
		writeRows(&b, ev.Rows)
	case ev.Rows != nil:
		fmt.Fprintf(&b, ", %d row%s", len(ev.Rows), english.S(len(ev.Rows)))
		writeRows(&b, ev.Rows)
	case ev.Affected > 0:
		fmt.Fprintf(&b, ", %d row%s affected", ev.Affected, english.S(int(ev.Affected)))
	}
	return b.String()
}

// writeRows writes the first maxShownRows rows of a result.
func writeRows(b *strings.Builder, rows []target.Row) {
	if len(rows) == 0 {
		return
	}
	b.WriteString(":")
	for i, row := range rows {
		if i == maxShownRows {
			b.WriteString(" ...")
			break
		}
		b.WriteString(" " + FormatRow(row))
	}
}

// WriteState prints a final state, one table after the other, its names
// and values terminal-safe (termsafe).
func WriteState(w io.Writer, s target.State) {
	for _, name := range s.Tables() {
		rows := s[name]
		fmt.Fprintf(w, "  %s: %d row%s\n", termsafe.Line(name), len(rows), english.S(len(rows)))
		for _, row := range rows {
			fmt.Fprintf(w, "    %s\n", termsafe.Line(FormatRow(row)))
		}
	}
}

// FormatRow prints a row as (v1, v2, NULL).
func FormatRow(row target.Row) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = v.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// safeLine is a statement on one line, safe to print on a terminal.
func safeLine(s string) string { return termsafe.Line(oneLine(s)) }

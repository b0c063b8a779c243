package htmlreport

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/testcase"
)

// Geometry of the timeline, in pixels.
const (
	laneHeight = 34
	stepWidth  = 30
	leftMargin = 70
	topMargin  = 22
	markSize   = 16
)

// timeline draws events (in the order the DBMS completed them) as SVG: a
// lane per connection, a column per event; a shaded span from a statement's
// BLOCKED to its RESUMED; commits, rollbacks and errors marked by class and
// shape; each mark's tooltip is the statement and its outcome.
func timeline(evs []executor.Event) string {
	var conns []int
	for _, ev := range evs {
		if !slices.Contains(conns, ev.Conn) {
			conns = append(conns, ev.Conn)
		}
	}
	slices.Sort(conns)
	lane := map[int]int{}
	for i, c := range conns {
		lane[c] = i
	}
	width := leftMargin + stepWidth*len(evs) + stepWidth
	height := topMargin + laneHeight*len(conns) + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="timeline of the actual schedule">`, width, height, width, height)
	y := func(c int) int { return topMargin + lane[c]*laneHeight + laneHeight/2 }
	x := func(i int) int { return leftMargin + i*stepWidth + stepWidth/2 }
	for _, c := range conns {
		fmt.Fprintf(&b, `<text class="lane-label" x="6" y="%d">conn %d</text>`, y(c)+4, c)
		fmt.Fprintf(&b, `<line class="lane" x1="%d" y1="%d" x2="%d" y2="%d"/>`, leftMargin, y(c), width-stepWidth/2, y(c))
	}
	for i := range evs {
		if i%5 == 0 {
			fmt.Fprintf(&b, `<text class="tick" x="%d" y="12">%d</text>`, x(i)-3, i+1)
		}
	}
	// Blocked spans first, under the marks.
	for i, ev := range evs {
		if ev.Status != executor.StatusBlocked {
			continue
		}
		end := len(evs) - 1
		for j := i + 1; j < len(evs); j++ {
			if evs[j].Conn == ev.Conn && evs[j].Resumed {
				end = j
				break
			}
		}
		fmt.Fprintf(&b, `<rect class="blocked-span" x="%d" y="%d" width="%d" height="%d"><title>%s</title></rect>`,
			x(i), y(ev.Conn)-laneHeight/2+3, x(end)-x(i), laneHeight-6, html.EscapeString(fmt.Sprintf("conn %d waits: %s", ev.Conn, oneLine(ev.SQL))))
	}
	for i, ev := range evs {
		class := markClass(ev)
		tip := html.EscapeString(fmt.Sprintf("#%d conn %d: %s — %s", i+1, ev.Conn, oneLine(ev.SQL), executor.Outcome(ev)))
		cx, cy := x(i), y(ev.Conn)
		switch class {
		case "commit":
			fmt.Fprintf(&b, `<polygon class="mark commit" points="%d,%d %d,%d %d,%d %d,%d"><title>%s</title></polygon>`,
				cx, cy-markSize/2, cx+markSize/2, cy, cx, cy+markSize/2, cx-markSize/2, cy, tip)
		case "abort", "error":
			h := markSize / 2
			fmt.Fprintf(&b, `<g class="mark %s"><title>%s</title><rect x="%d" y="%d" width="%d" height="%d"/><path d="M%d %d L%d %d M%d %d L%d %d"/></g>`,
				class, tip, cx-h, cy-h, markSize, markSize, cx-h+3, cy-h+3, cx+h-3, cy+h-3, cx+h-3, cy-h+3, cx-h+3, cy+h-3)
		default:
			fmt.Fprintf(&b, `<circle class="mark %s" cx="%d" cy="%d" r="%d"><title>%s</title></circle>`, class, cx, cy, markSize/2-1, tip)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
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
	switch testcase.ControlOf(ev.SQL) {
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
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

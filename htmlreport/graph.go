package htmlreport

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"strings"
)

// The DOT subset txlab writes (oracle/isorel's graph.dot): one node per
// line with a label whose lines end in \l, one edge per line with a label.
var (
	dotNode = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\s*\[label="((?:[^"\\]|\\.)*)"\];\s*$`)
	dotEdge = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\s*->\s*([A-Za-z0-9_]+)\s*\[label="((?:[^"\\]|\\.)*)"\];\s*$`)
)

type graphNode struct {
	id     string
	lines  []string
	x, y   float64
	hw, hh float64 // half width, half height
}

type graphEdge struct{ from, to, label string }

// Graph sizes, in pixels.
const (
	charWidth  = 7.2
	lineHeight = 15
	maxChars   = 48
)

// graphSVG draws a graph.dot of txlab's as inline SVG without Graphviz: the
// nodes (transactions with their statements) on a circle, the edges as
// labelled arcs. ok is false when dot holds nothing it knows.
func graphSVG(dot string) (svg string, ok bool) {
	var nodes []*graphNode
	index := map[string]*graphNode{}
	var edges []graphEdge
	for _, line := range strings.Split(dot, "\n") {
		if m := dotEdge.FindStringSubmatch(line); m != nil {
			edges = append(edges, graphEdge{m[1], m[2], unescapeDot(m[3])})
		} else if m := dotNode.FindStringSubmatch(line); m != nil {
			n := &graphNode{id: m[1]}
			for _, l := range strings.Split(strings.ReplaceAll(m[2], `\n`, `\l`), `\l`) {
				if l = unescapeDot(l); l != "" {
					if len(l) > maxChars {
						l = l[:maxChars-1] + "…"
					}
					n.lines = append(n.lines, l)
				}
			}
			nodes = append(nodes, n)
			index[n.id] = n
		}
	}
	if len(nodes) == 0 {
		return "", false
	}
	maxHW, maxHH := 0.0, 0.0
	for _, n := range nodes {
		w := 0
		for _, l := range n.lines {
			w = max(w, len([]rune(l)))
		}
		n.hw, n.hh = float64(w)*charWidth/2+8, float64(len(n.lines))*lineHeight/2+6
		maxHW, maxHH = max(maxHW, n.hw), max(maxHH, n.hh)
	}
	// On a circle wide enough that neighbouring boxes do not overlap.
	r := 0.0
	if len(nodes) > 1 {
		r = (maxHW + maxHH + 40) / math.Sin(math.Pi/float64(len(nodes)))
		r = max(r, 2*maxHW+60) / 2
	}
	width, height := 2*(r+maxHW)+40, 2*(r+maxHH)+40
	for i, n := range nodes {
		a := -math.Pi/2 + 2*math.Pi*float64(i)/float64(len(nodes))
		if len(nodes) == 2 {
			a = math.Pi * float64(i) // side by side
			height = 2*maxHH + 120
		}
		n.x, n.y = width/2+r*math.Cos(a), height/2+r*math.Sin(a)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="dependency graph">`, width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#444"/></marker></defs>`)
	var labels []string
	for _, e := range edges {
		from, to := index[e.from], index[e.to]
		if from == nil || to == nil || from == to {
			continue
		}
		// Bend every arc to its left, so that a → b and b → a part.
		dx, dy := to.x-from.x, to.y-from.y
		l := math.Hypot(dx, dy)
		cx, cy := (from.x+to.x)/2-dy/l*50, (from.y+to.y)/2+dx/l*50
		sx, sy := border(from, cx, cy)
		ex, ey := border(to, cx, cy)
		fmt.Fprintf(&b, `<path class="edge" d="M%.1f %.1f Q%.1f %.1f %.1f %.1f" marker-end="url(#arrow)"/>`, sx, sy, cx, cy, ex, ey)
		// The label sits just outside the arc's middle, on the side it
		// bends to, and is drawn over the boxes (below): a row's name
		// can be wider than the gap between two boxes.
		labels = append(labels, fmt.Sprintf(`<text class="edge-label" x="%.1f" y="%.1f" text-anchor="middle" dominant-baseline="central">%s</text>`,
			(sx+2*cx+ex)/4-dy/l*10, (sy+2*cy+ey)/4+dx/l*10, html.EscapeString(e.label)))
	}
	for _, n := range nodes {
		fmt.Fprintf(&b, `<g class="node"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="4"/>`, n.x-n.hw, n.y-n.hh, 2*n.hw, 2*n.hh)
		for i, l := range n.lines {
			class := "stmt"
			if i == 0 {
				class = "txn"
			}
			fmt.Fprintf(&b, `<text class="%s" x="%.1f" y="%.1f">%s</text>`, class, n.x-n.hw+8, n.y-n.hh+6+float64(i+1)*lineHeight-3, html.EscapeString(l))
		}
		b.WriteString(`</g>`)
	}
	for _, l := range labels {
		b.WriteString(l)
	}
	b.WriteString(`</svg>`)
	return b.String(), true
}

// border is where the line from node n's centre towards (x, y) leaves its
// box.
func border(n *graphNode, x, y float64) (float64, float64) {
	dx, dy := x-n.x, y-n.y
	if dx == 0 && dy == 0 {
		return n.x, n.y
	}
	s := math.Inf(1)
	if dx != 0 {
		s = n.hw / math.Abs(dx)
	}
	if dy != 0 {
		s = min(s, n.hh/math.Abs(dy))
	}
	return n.x + s*dx, n.y + s*dy
}

func unescapeDot(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
}

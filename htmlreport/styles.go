package htmlreport

import "html/template"

// styles are inlined into every page: the report has no external assets.
const styles template.CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em 2em; color: #1d232a; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #d8dde3; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f1f4f7; }
tr.hidden { display: none; }
.verdict-bug { color: #b3261e; font-weight: 600; }
.verdict-suspect { color: #8a5a00; }
.verdict-allowed, .verdict-known { color: #4a5560; }
.filters { margin: 0.8em 0; display: flex; gap: 1em; flex-wrap: wrap; }
pre { background: #f6f8fa; padding: 8px 12px; overflow-x: auto; font-size: 13px; }
.side { display: flex; gap: 1.5em; flex-wrap: wrap; }
.side > div { flex: 1; min-width: 20em; }
table.timeline { width: 100%; table-layout: fixed; font-size: 13px; }
table.timeline th.n, table.timeline td.n { width: 2.5em; color: #57606a; }
table.timeline td { border-left: 1px solid #eef1f4; word-wrap: break-word; overflow-wrap: anywhere; }
table.timeline code { white-space: pre-wrap; }
table.timeline .outcome { color: #57606a; font-size: 12px; }
table.timeline .wait { color: #8a5a00; font-size: 12px; }
table.timeline .sym { display: inline-block; width: 1.2em; font-weight: 700; }
table.timeline td.ok .sym { color: #5b8def; }
table.timeline td.blocked { background: #fdf1d3; } table.timeline td.blocked .sym { color: #b07800; }
table.timeline td.waiting { background: #fdf6e3; color: #b07800; font-size: 12px; font-style: italic; }
table.timeline td.resumed { background: #fdf6e3; } table.timeline td.resumed .sym { color: #2f6fd6; }
table.timeline td.commit .sym { color: #1f9d55; } table.timeline td.commit code { color: #1f7a45; font-weight: 600; }
table.timeline td.abort .sym, table.timeline td.abort code { color: #c0621c; }
table.timeline td.error { background: #fdecea; } table.timeline td.error .sym, table.timeline td.error .outcome { color: #b3261e; }
table.timeline td.skipped { color: #8c959f; }
table.timeline td.focus { outline: 3px solid #b3261e; outline-offset: -3px; }
img.graph, svg.graph { max-width: 100%; height: auto; }
svg.graph .node rect { fill: #f6f8fa; stroke: #57606a; }
svg.graph .node text { font: 12px monospace; fill: #1d232a; } svg.graph .node text.txn { font-weight: 700; }
svg.graph .edge { fill: none; stroke: #444; stroke-width: 1.4; }
svg.graph .edge-label { font: 12px monospace; fill: #b3261e; stroke: #fff; stroke-width: 4px; paint-order: stroke; }
.legend span { margin-right: 1.2em; font-size: 12px; }
.muted { color: #57606a; }
`

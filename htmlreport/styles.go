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
svg.timeline { background: #fcfcfd; border: 1px solid #e1e5ea; }
svg.timeline .lane { stroke: #c9d1d9; stroke-width: 1; }
svg.timeline .lane-label, svg.timeline .tick { font: 11px monospace; fill: #57606a; }
svg.timeline .blocked-span { fill: #f6c343; fill-opacity: 0.35; }
svg.timeline .mark.ok { fill: #5b8def; }
svg.timeline .mark.resumed { fill: #2f6fd6; stroke: #f0a500; stroke-width: 2; }
svg.timeline .mark.blocked { fill: #f0a500; }
svg.timeline .mark.skipped { fill: #fff; stroke: #8c959f; stroke-width: 1.5; }
svg.timeline .mark.commit { fill: #1f9d55; }
svg.timeline .mark.abort rect { fill: #e8833a; } svg.timeline .mark.error rect { fill: #d1242f; }
svg.timeline .mark path { stroke: #fff; stroke-width: 2; }
img.graph { max-width: 100%; }
svg.graph .node rect { fill: #f6f8fa; stroke: #57606a; }
svg.graph .node text { font: 12px monospace; fill: #1d232a; } svg.graph .node text.txn { font-weight: 700; }
svg.graph .edge { fill: none; stroke: #444; stroke-width: 1.4; }
svg.graph .edge-label { font: 12px monospace; fill: #b3261e; }
.legend span { margin-right: 1.2em; font-size: 12px; }
.muted { color: #57606a; }
`

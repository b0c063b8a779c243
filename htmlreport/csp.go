package htmlreport

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
)

// filterScript is the only script of the report: index.html's filters. It
// lives here rather than in the template so that its hash, which the
// Content-Security-Policy names, is computed from the very bytes the page
// holds.
const filterScript template.JS = `
(function () {
  var v = document.getElementById('f-verdict'), o = document.getElementById('f-oracle'),
      t = document.getElementById('f-text'), n = document.getElementById('f-count');
  if (!v) return;
  function apply() {
    var rows = document.querySelectorAll('#findings tr.finding'), shown = 0, q = t.value.toLowerCase();
    rows.forEach(function (r) {
      var ok = (!v.value || r.dataset.verdict === v.value) && (!o.value || r.dataset.oracle === o.value) &&
               (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.classList.toggle('hidden', !ok);
      if (ok) shown++;
    });
    n.textContent = shown + ' of ' + rows.length + ' shown';
  }
  [v, o, t].forEach(function (e) { e.addEventListener('input', apply); });
  apply();
})();
`

// The pages' Content-Security-Policy. The pages show what bundles hold —
// SQL, DBMS error messages, file names, a graph — and a bundle may come from
// anyone (a shared --out directory, a bug report's attachment), so nothing
// but txlab's own script may run and nothing may load from the network:
// scripts only by hash, styles inline (the pages' <style> and style
// attributes; all text in them is escaped), images only from the bundle's
// own directory (graph.svg) or data: URLs.
const cspBase = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'"

var (
	// pageCSP runs no script at all.
	pageCSP = cspBase + "; script-src 'none'"
	// indexCSP runs filterScript only.
	indexCSP = cspBase + "; script-src '" + scriptHash(string(filterScript)) + "'"
)

func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

package htmlreport

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// bundles copies testdata/bundles (written by txlab run and fuzz on
// MariaDB 10.11.19: a Troc incorrect-result bug, a WSS bug with blocked
// statements, a reduced Troc bundle, an IsoRel finding with its graph.dot,
// and a summary.json with a count and a known finding) into a temporary
// directory.
func bundles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "bundles"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWrite(t *testing.T) {
	dir := bundles(t)
	index, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	html := read(t, index)
	for _, want := range []string{
		`<a href="0002-troc-incorrect-result-bug/report.html">`,
		`<a href="0003-wss-tx-wss-bug/report.html">`,
		`<a href="0022-troc-incorrect-affected-bug/report.html">`,
		`<td>4</td>`,           // summary.json's count
		`MDEV-26643</td><td>7`, // the known finding
		`5 <span class="muted">(reduced from 20)</span>`,
		`mariadb 10.11.19-MariaDB-0`, // html/template writes + as &#43;
		// Totals by oracle and verdict: summary.json's counts (troc 4+1+1,
		// the known WSS findings 7), and the server.
		`<tr><td>troc</td><td>6</td><td>0</td><td>0</td></tr>`,
		`<tr><td>wss</td><td>1</td><td>0</td><td>7</td></tr>`,
		`<p>Found on <strong>mariadb 10.11.19-MariaDB-0`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(html, "http://") || strings.Contains(html, "https://") {
		t.Error("index.html refers to the network")
	}
	page := read(t, filepath.Join(dir, "0003-wss-tx-wss-bug", report.PageFile))
	// 28 events: one row each, the statement's text and outcome visible;
	// a blocked statement says what released it, and the rows it waits
	// through are shaded.
	if n := strings.Count(page, `<td class="ev `); n != 28 {
		t.Errorf("timeline has %d statement cells, want 28 (one per event)", n)
	}
	if n := strings.Count(page, `<td class="waiting">`); n < 2 {
		t.Errorf("timeline has %d waiting cells", n)
	}
	for _, want := range []string{`<td class="ev commit">`, `<td class="ev error">`, `<td class="ev abort">`, `<th>connection 3</th>`,
		`<div class="outcome">BLOCKED</div>`, `<div class="wait">waits for a lock; resumes (#`, `&#39;s COMMIT (#`} {
		if !strings.Contains(page, want) {
			t.Errorf("the WSS page's timeline lacks %q", want)
		}
	}
	// A blocking finding sets what should have happened beside what did,
	// and shows no empty row boxes.
	blk := read(t, filepath.Join(dir, "0004-troc-incorrect-blocking-bug", report.PageFile))
	for _, want := range []string{`id="blocking"`, "what should have happened", "it waits (BLOCKED) until another transaction releases a lock it needs",
		"it ran without waiting: ok, 2 rows affected", "UPDATE t2 SET c2 = UPPER(c2)"} {
		if !strings.Contains(blk, want) {
			t.Errorf("the Troc blocking page lacks %q", want)
		}
	}
	if !strings.Contains(blk, `<td class="ev ok focus">`) || strings.Index(blk, `id="blocking"`) > strings.Index(blk, `id="timeline"`) {
		t.Error("the Troc blocking page does not outline its statement, or shows the schedule before what went wrong")
	}
	if strings.Contains(blk, `id="rows"`) {
		t.Error("the Troc blocking page shows empty row boxes")
	}
	// A bug report block to paste: server, level, which statement, what
	// was expected of it and what happened, the case per connection; none
	// of txlab's headers, no local path, connections as the schedule
	// names them.
	paste := blk[strings.Index(blk, `id="bug-report"`):]
	paste = paste[:strings.Index(paste, "</pre>")]
	for _, want := range []string{"DBMS: mariadb 10.11.19-MariaDB-0", "Isolation level: READ COMMITTED (every connection)",
		"Expected: connection 3&#39;s UPDATE t2 SET c2 = UPPER(c2) WHERE c2 &gt; &#39;add&#39; waits until the transaction holding the row&#39;s lock commits or rolls back.",
		"Actual: it did not wait: Query OK, 2 rows affected.", "-- connection 3\nUPDATE t2 SET c2 = UPPER(c2) WHERE c2 &gt; &#39;add&#39;;  -- &lt;- this statement: see Expected below",
		"Known issue: this is the behaviour of MDEV-30835 (https://jira.mariadb.org/browse/MDEV-30835).",
		"connection 2&#39;s transaction holds locked"} {
		if !strings.Contains(paste, want) {
			t.Errorf("the bug report block lacks %q", want)
		}
	}
	for _, bad := range []string{"-- seed", "-- replay", "reduced-from", "Reduced by", "/tmp/", "T2", "3&gt; "} {
		if strings.Contains(paste, bad) {
			t.Errorf("the bug report block holds %q", bad)
		}
	}
	// A known defect's rule links to its tracker.
	if !strings.Contains(page, `known bug <a href="https://jira.mariadb.org/browse/MDEV-30835">MDEV-30835</a>`) {
		t.Error("the WSS page does not link its rule's known bug MDEV-30835")
	}
	// report.json's db: the exact target the finding was made on.
	if !strings.Contains(page, "<code>--db mariadb --set innodb_snapshot_isolation=ON</code>") {
		t.Error("the WSS page does not name its target (report.json's db)")
	}
	troc := read(t, filepath.Join(dir, "0002-troc-incorrect-result-bug", report.PageFile))
	for _, want := range []string{"it must return (2)", "it returned (2)", "(10, 1)", "(1, 1)", "SELECT * FROM t"} {
		if !strings.Contains(troc, want) {
			t.Errorf("the Troc page lacks %q", want)
		}
	}
	reduced := read(t, filepath.Join(dir, "0022-troc-incorrect-affected-bug", report.PageFile))
	if !strings.Contains(reduced, "The case as found: <code>case.orig.txn</code>") || strings.Contains(reduced, `id="timeline"`) {
		t.Error("the reduced bundle's page (no schedule.json) is wrong")
	}

	graph := read(t, filepath.Join(dir, "0001-isorel-lost-update-allowed", report.PageFile))
	if !strings.Contains(graph, `<svg class="graph"`) || strings.Count(graph, `class="edge"`) != 2 || !strings.Contains(graph, "rw r2") {
		t.Error("the IsoRel page has no drawing of graph.dot's two nodes and two edges")
	}

	empty := t.TempDir()
	index, err = Write(empty)
	if err != nil || !strings.Contains(read(t, index), `id="no-findings"`) {
		t.Errorf("an empty directory: %v", err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestChromium renders the index and a finding page in headless Chromium,
// as a person opening them would see them: the DOM after the page's script
// ran (the filter counted the rows), and screenshots that are not blank.
func TestChromium(t *testing.T) {
	bin := chromium(t)
	dir := bundles(t)
	index, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	dom := headless(t, bin, "--dump-dom", index)
	for _, want := range []string{"5 of 5 shown", `class="finding"`, "mdev-26642-noop-update-view"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered index lacks %q", want)
		}
	}
	page := filepath.Join(dir, "0003-wss-tx-wss-bug", report.PageFile)
	if dom := headless(t, bin, "--dump-dom", page); !strings.Contains(dom, `<table class="timeline"`) {
		t.Error("rendered finding page has no timeline")
	}
	for _, p := range []string{index, page} {
		shot := filepath.Join(t.TempDir(), "shot.png")
		headless(t, bin, "--screenshot="+shot, p)
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		colours := map[[3]uint32]bool{}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 4 {
			for x := b.Min.X; x < b.Max.X; x += 4 {
				r, g, bl, _ := img.At(x, y).RGBA()
				colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			}
		}
		if len(colours) < 10 {
			t.Errorf("%s: the screenshot has %d colours: blank", filepath.Base(p), len(colours))
		}
	}
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (.ci/run installs Debian's chromium)")
	}
	t.Skip("chromium is not installed")
	return ""
}

func headless(t *testing.T, bin, mode, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--window-size=1280,900", "--user-data-dir="+t.TempDir(), mode, "file://"+path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", mode, err, errb.String())
	}
	return out.String()
}

func TestGraphSVG(t *testing.T) {
	svg, ok := graphSVG(`digraph cycle {
  rankdir=LR;
  node [shape=box, fontname="monospace"];
  T1 [label="T1\lSELECT * FROM t WHERE a < 3 AND b = \"x\"\l"];
  T2 [label="T2\lUPDATE t SET a = 1\l"];
  T3 [label="T3\lDELETE FROM t\l"];
  T1 -> T2 [label="rw r2"];
  T2 -> T3 [label="ww r2"];
  T3 -> T1 [label="wr r1"];
}`)
	if !ok {
		t.Fatal("graph not understood")
	}
	for _, want := range []string{"a &lt; 3", "&#34;x&#34;", ">T3<", "wr r1"} {
		if !strings.Contains(svg, want) {
			t.Errorf("graph SVG lacks %q", want)
		}
	}
	if n := strings.Count(svg, `class="edge"`); n != 3 {
		t.Errorf("%d edges, want 3", n)
	}
	if _, ok := graphSVG("not a graph"); ok {
		t.Error("text without nodes drawn as a graph")
	}
}

// hostileSVG is a graph.svg that tries every way an SVG has to run script:
// a <script> element, event attributes (onload, onerror on an image that
// cannot load, on an HTML element in a foreignObject), and a javascript:
// link. Each would mark the page (its title, an attribute of <html>).
const hostileSVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100"
     onload="document.title='PWNED-onload'">
<script>document.title = 'PWNED-script'; document.documentElement.setAttribute('data-pwned', 'script');</script>
<image href="missing.png" width="10" height="10" onerror="document.title='PWNED-onerror'"/>
<image xlink:href="missing2.png" width="10" height="10" onerror="document.documentElement.setAttribute('data-pwned', 'onerror')"/>
<foreignObject width="100" height="50"><div xmlns="http://www.w3.org/1999/xhtml"><img src="missing3.png" onerror="document.title='PWNED-foreign'"/></div></foreignObject>
<a href="javascript:document.title='PWNED-link'"><text x="10" y="40" style="fill:url(javascript:alert(1))">click</text></a>
</svg>
`

// graphBundle writes a bundle directory holding the IsoRel finding of
// testdata with svg as its graph.svg, and returns the report's directory.
func graphBundle(t *testing.T, svg string) (dir, page string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("testdata", "bundles", "0001-isorel-lost-update-allowed")
	if err := os.CopyFS(filepath.Join(dir, "0001-isorel-lost-update-allowed"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0001-isorel-lost-update-allowed", "graph.svg"), []byte(svg), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, "0001-isorel-lost-update-allowed", report.PageFile)
}

// TestPagesCarryNoActiveContent: a bundle's graph.svg reaches the page only
// as an image, and every page has a Content-Security-Policy that allows no
// script but index.html's own filter script.
func TestPagesCarryNoActiveContent(t *testing.T) {
	dir, page := graphBundle(t, hostileSVG)
	html := read(t, page)
	for _, bad := range []string{"PWNED", "<script", "onerror", "javascript:"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q from graph.svg", bad)
		}
	}
	if !strings.Contains(html, `<img class="graph" src="graph.svg"`) {
		t.Error("the page does not show graph.svg as an image")
	}
	index := read(t, filepath.Join(dir, IndexFile))
	for name, p := range map[string]string{"index.html": index, "report.html": html} {
		m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(p)
		if m == nil {
			t.Errorf("%s has no Content-Security-Policy", name)
			continue
		}
		csp := strings.ReplaceAll(m[1], "&#39;", "'")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src ") ||
			regexp.MustCompile(`script-src[^;]*('unsafe-inline'|\*|data:|'self')`).MatchString(csp) {
			t.Errorf("%s: weak Content-Security-Policy %q", name, csp)
		}
		if strings.Index(p, "Content-Security-Policy") > strings.Index(p, "<style") {
			t.Errorf("%s: the policy comes after content it should govern", name)
		}
	}
}

// TestChromiumHostileGraph opens the page of a bundle whose graph.svg tries
// to run script in headless Chromium: nothing runs. A benign graph.svg (a
// large green box) is drawn on its page.
func TestChromiumHostileGraph(t *testing.T) {
	bin := chromium(t)
	_, page := graphBundle(t, hostileSVG)
	dom := headless(t, bin, "--dump-dom", page)
	if strings.Contains(dom, "PWNED") || strings.Contains(dom, "data-pwned") {
		t.Errorf("graph.svg's script ran:\n%s", dom)
	}
	if !strings.Contains(dom, "<title>isorel lost-update allowed") {
		t.Errorf("the page's title changed:\n%s", dom)
	}

	_, page = graphBundle(t, `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300" fill="#00ff00"/></svg>`)
	shot := filepath.Join(t.TempDir(), "shot.png")
	headless(t, bin, "--screenshot="+shot, page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	green := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 < 16 && g>>8 > 240 && bl>>8 < 16 {
				green++
			}
		}
	}
	// 600×300 pixels, sampled every other row and column: 45000, of which
	// the window (1280×900) shows at least half.
	if green < 20000 {
		t.Errorf("the graph is not drawn: %d green samples in the screenshot", green)
	}
}

// TestWriteRun: a run that recorded nothing writes no report (a campaign
// that finds nothing leaves no directory); one that did saves its counts
// and writes the index over its directory.
func TestWriteRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if page, err := WriteRun(nil); page != "" || err != nil {
		t.Errorf("nil writer: %q, %v", page, err)
	}
	w := &report.Writer{Dir: dir}
	if page, err := WriteRun(w); page != "" || err != nil {
		t.Errorf("nothing recorded: %q, %v", page, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("nothing recorded, yet %s was made", dir)
	}
	if _, _, err := w.Write(report.Bundle{Finding: verdict.Finding{Oracle: "wss", Kind: "tx-wss", Verdict: verdict.Bug, Rule: "r"}, Text: "t"}); err != nil {
		t.Fatal(err)
	}
	page, err := WriteRun(w)
	if err != nil || page != filepath.Join(dir, "index.html") {
		t.Fatalf("WriteRun = %q, %v", page, err)
	}
	if _, err := os.Stat(filepath.Join(dir, report.SummaryFile)); err != nil {
		t.Errorf("no %s: %v", report.SummaryFile, err)
	}
}

// TestPagesShowBidiControls: a bundle whose case holds a right-to-left
// override (U+202E) gets pages without it: the page shows its escape, so
// the case reads as it runs.
func TestPagesShowBidiControls(t *testing.T) {
	dir := bundles(t)
	var bundle string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			bundle = filepath.Join(dir, e.Name())
			break
		}
	}
	if err := os.WriteFile(filepath.Join(bundle, "case.txn"), []byte("1> SELECT 'safe' /* \u202e */ ;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(bundle, "report.html"))
	if strings.ContainsRune(page, '\u202e') {
		t.Error("the page holds U+202E")
	}
	if !strings.Contains(page, `/* \u202e */`) {
		t.Error("the page does not show the case's U+202E as an escape")
	}
}

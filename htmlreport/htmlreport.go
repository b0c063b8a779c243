// Package htmlreport renders a directory of finding bundles (what `txlab
// fuzz --out DIR` and `txlab run --out DIR` write) as static HTML a person
// can open from disk: DIR/index.html, a table of every finding with
// filters, and one page per bundle (BUNDLE/report.html) with the case, a
// timeline of the actual schedule, the dependency graph where there is one
// and, for Troc findings, the rows expected beside the rows returned. Pages
// use no server and no external assets, and carry no active content from a
// bundle: a Content-Security-Policy allows only the index's own filter
// script, and graph.svg is shown as an image, which never runs script.
package htmlreport

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/convert/upstream"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// IndexFile is the report's entry page in the bundle directory.
const IndexFile = "index.html"

//go:embed templates
var templateFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"row": func(r target.Row) string { return executor.FormatRow(r) },
}).ParseFS(templateFS, "templates/*.html"))

// Bundle is one finding bundle as the pages show it.
type Bundle struct {
	Name   string // directory name
	Report report.Report
	// Count is how many findings had the bundle's cause (summary.json;
	// 1 when the directory has none).
	Count int
	// Oracles are the oracles whose findings the bundle holds: its own
	// and those of report.json's also, with their counts where
	// summary.json has them ("troc 3, wss 1").
	Oracles string
	Case    string
	Orig    string // case.orig.txn, when the case was reduced
	Text    string // report.txt
	Steps   int    // statements of case.txn, and of case.orig.txn
	OrigN   int
	Sched   *report.Schedule
	// SchedOf names the case Sched is an execution of.
	SchedOf string
	// GraphFile is graph.svg (Graphviz's drawing) when the bundle has
	// one. The page shows it through <img>, never inline: an SVG image
	// runs no script and loads nothing, whatever the file holds, so a
	// hostile bundle needs no sanitiser to be harmless.
	GraphFile string
	Graph     template.HTML // txlab's own drawing of graph.dot, inline
	Dot       string        // graph.dot, when it cannot be drawn
	Troc      *trocRows
	// Blocking is what a statement should have done beside what it did,
	// for a Troc incorrect-blocking finding.
	Blocking *blocking
	// Focus is the statement the finding is about (a Troc finding's
	// step, 1-based; 0 none) and FocusConn its connection: the timeline
	// marks it.
	Focus, FocusConn int
	// Known is the corpus bug whose rule the finding names, with its
	// tracker link: a known defect reads as the bug report it is.
	Known *knownBug
	// byOracle is summary.json's count of the bundle's findings by
	// oracle, when more than one found its cause.
	byOracle map[string]int
	Styles   template.CSS
	CSP      string
}

// forIndex is b as the index keeps it once its page is written: what an
// index row and the totals show, without the texts only the page shows
// (the cases, report.txt, the schedule, the graph, the details), so that
// a directory of large bundles is not held in memory all at once.
func (b *Bundle) forIndex() *Bundle {
	f := b.Report.Finding
	f.Summary, f.Transactions = "", nil
	s := &Bundle{Name: b.Name, Count: b.Count, Oracles: b.Oracles, Steps: b.Steps, OrigN: b.OrigN, byOracle: b.byOracle,
		Report: report.Report{Finding: f, Target: b.Report.Target, Found: b.Report.Found}}
	if b.Orig != "" {
		s.Orig = "reduced" // the index asks only whether there is one
	}
	return s
}

// blocking sets a statement's expected wait beside its actual one.
type blocking struct {
	Conn             int
	SQL              string
	Expected, Actual string
}

// knownBug is a corpus bug a finding's rule names.
type knownBug struct{ ID, Link string }

// trocRows are the rows of a Troc incorrect-result finding.
type trocRows struct {
	Want, May, Got []target.Row
	SQL            string
}

// index is the data of index.html.
type index struct {
	Dir       string
	Generated string
	Bundles   []*Bundle
	Known     []report.SignatureCount
	// Unbundled counts the findings counted without a bundle (allowed
	// ones, unless --keep-allowed), UnbundledSigs their signatures: a
	// count, not a table of documented behaviour.
	Unbundled, UnbundledSigs int
	Oracles                  []string
	Verdicts                 []string
	// Targets are the servers the findings were made on; Totals the
	// findings by oracle and verdict (summary.json's counts, else one per
	// bundle), TotalVerdicts the verdicts in the order the table shows.
	Targets       []string
	Totals        map[string]map[string]int
	TotalVerdicts []string
	Styles        template.CSS
	Script        template.JS
	CSP           string
}

// Write renders dir's bundles: dir/index.html and a report.html in each
// bundle directory. It returns the index's path. A directory without any
// bundle still gets an index saying so.
func Write(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	counts := map[string]int{}
	byOracle := map[string]map[string]int{}
	var known []report.SignatureCount
	data, err := report.ReadFileMax(filepath.Join(dir, report.SummaryFile), report.MaxPageJSON)
	if errors.Is(err, report.ErrTooLarge) {
		return "", err
	}
	if err == nil {
		var sum []report.SignatureCount
		if err := json.Unmarshal(data, &sum); err != nil {
			return "", fmt.Errorf("%s: %w", report.SummaryFile, err)
		}
		for _, s := range sum {
			if s.Dir == "" { // counted without a bundle: known, or allowed
				known = append(known, s)
				continue
			}
			counts[filepath.Base(s.Dir)] = s.Count
			byOracle[filepath.Base(s.Dir)] = s.ByOracle
		}
	}
	idx := &index{Dir: dir, Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Styles: styles,
		Script: filterScript, CSP: indexCSP}
	for _, k := range known {
		if k.Verdict == verdict.Known {
			idx.Known = append(idx.Known, k)
		} else {
			idx.Unbundled += k.Count
			idx.UnbundledSigs++
		}
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := readBundle(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // not a bundle
		}
		if err != nil {
			return "", err
		}
		b.Count = max(counts[e.Name()], 1)
		b.Oracles = oraclesOf(b, byOracle[e.Name()])
		if err := writePage(filepath.Join(dir, e.Name(), report.PageFile), b); err != nil {
			return "", err
		}
		b = b.forIndex()
		idx.Bundles = append(idx.Bundles, b)
		for _, v := range []string{"o:" + b.Report.Finding.Oracle, "v:" + string(b.Report.Finding.Verdict)} {
			if !seen[v] {
				seen[v] = true
				if v[0] == 'o' {
					idx.Oracles = append(idx.Oracles, v[2:])
				} else {
					idx.Verdicts = append(idx.Verdicts, v[2:])
				}
			}
		}
	}
	sort.Strings(idx.Oracles)
	sort.Strings(idx.Verdicts)
	idx.totals(known)
	// Bugs first, then in the order they were found.
	sort.SliceStable(idx.Bundles, func(i, j int) bool {
		bi, bj := idx.Bundles[i].Report.Finding.Verdict == verdict.Bug, idx.Bundles[j].Report.Finding.Verdict == verdict.Bug
		return bi && !bj
	})
	path := filepath.Join(dir, IndexFile)
	return path, writeTemplate(path, "index.html", idx)
}

// totals fills the index's targets and its findings by oracle and verdict.
func (idx *index) totals(known []report.SignatureCount) {
	idx.Totals = map[string]map[string]int{}
	add := func(oracle, v string, n int) {
		if idx.Totals[oracle] == nil {
			idx.Totals[oracle] = map[string]int{}
		}
		idx.Totals[oracle][v] += n
	}
	for _, b := range idx.Bundles {
		if by := b.byOracle; len(by) > 1 {
			for o, n := range by {
				add(o, string(b.Report.Finding.Verdict), n)
			}
		} else {
			add(b.Report.Finding.Oracle, string(b.Report.Finding.Verdict), b.Count)
		}
		if t := b.Report.Target; t != "" && !slices.Contains(idx.Targets, t) {
			idx.Targets = append(idx.Targets, t)
		}
	}
	for _, k := range known {
		oracle, _, _ := strings.Cut(k.Signature, " ")
		add(oracle, string(k.Verdict), k.Count)
	}
	for _, v := range []verdict.Verdict{verdict.Bug, verdict.Suspect, verdict.Allowed, verdict.Known} {
		for _, byVerdict := range idx.Totals {
			if byVerdict[string(v)] > 0 && !slices.Contains(idx.TotalVerdicts, string(v)) {
				idx.TotalVerdicts = append(idx.TotalVerdicts, string(v))
			}
		}
	}
	slices.Sort(idx.Targets)
	if len(idx.Totals) > 0 {
		idx.Oracles = slices.Sorted(maps.Keys(idx.Totals))
	}
}

// oraclesOf is the Oracles of bundle b, whose findings summary.json
// counts by oracle as by (nil: one oracle, or no summary).
func oraclesOf(b *Bundle, by map[string]int) string {
	names := []string{b.Report.Finding.Oracle}
	for _, a := range b.Report.Also {
		if !slices.Contains(names, a.Finding.Oracle) {
			names = append(names, a.Finding.Oracle)
		}
	}
	b.byOracle = by
	if len(by) < 2 {
		return strings.Join(names, ", ")
	}
	for i, o := range names {
		names[i] = fmt.Sprintf("%s %d", o, by[o])
	}
	return strings.Join(names, ", ")
}

func writePage(path string, b *Bundle) error {
	b.Styles, b.CSP = styles, pageCSP
	return writeTemplate(path, "page.html", b)
}

func writeTemplate(path, name string, data any) error {
	var sb strings.Builder
	if err := templates.ExecuteTemplate(&sb, name, data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// Markup is escaped by the templates; a bidirectional control in a
	// case or a value is shown as its escape, so that no line of the page
	// reads otherwise than the case runs.
	return atomicfile.WriteFile(path, []byte(termsafe.Bidi(sb.String())), 0o644)
}

// graphFile is Graphviz's drawing of a bundle's graph.dot.
const graphFile = "graph.svg"

// readBundle reads one bundle directory; fs.ErrNotExist when it has no
// report.json. A file the page would show that is past its bound
// (report.MaxPageText, report.MaxPageJSON) is not shown: the page says so
// and names the file, which stays in the bundle (a page that held it
// would be too large to write or open, and a genuine finding's bundle must
// not fail the run that found it).
func readBundle(dir string) (*Bundle, error) {
	b := &Bundle{Name: filepath.Base(dir)}
	data, err := report.ReadFileMax(filepath.Join(dir, "report.json"), report.MaxPageJSON)
	large := errors.Is(err, report.ErrTooLarge)
	if err != nil && !large {
		return nil, err
	}
	if !large {
		if err := json.Unmarshal(data, &b.Report); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
		}
	}
	read := func(name string) string {
		// A missing file, or one that is not plain (a link), is not
		// shown; one too large is named instead.
		data, err := report.ReadFileMax(filepath.Join(dir, name), report.MaxPageText)
		if errors.Is(err, report.ErrTooLarge) {
			return notShown(name, report.MaxPageText)
		}
		return string(data)
	}
	b.Case, b.Orig, b.Text = read("case.txn"), read("case.orig.txn"), read("report.txt")
	if large {
		b.Text = notShown("report.json", report.MaxPageJSON) + "\n" + b.Text
	}
	b.Steps, b.OrigN = countSteps(b.Case), countSteps(b.Orig)
	data, err = report.ReadFileMax(filepath.Join(dir, report.ScheduleFile), report.MaxPageJSON)
	if err == nil {
		var s report.Schedule
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, report.ScheduleFile), err)
		}
		b.Sched = &s
		b.SchedOf = "case.txn"
		if _, err := os.Stat(filepath.Join(dir, "schedule.orig.json")); b.Orig != "" && err != nil {
			// Reduced before reductions kept the reduced case's run.
			b.SchedOf = "case.orig.txn"
		}
	}
	svg := read(graphFile)
	dot := ""
	if !strings.Contains(svg, "<svg") {
		dot = read("graph.dot")
	}
	if strings.Contains(svg, "<svg") && !strings.HasPrefix(svg, notShownPrefix) {
		b.GraphFile = graphFile
	} else if dot != "" {
		if svg, ok := graphSVG(dot); ok {
			b.Graph = template.HTML(svg)
		} else {
			b.Dot = dot
		}
	}
	if e, ok := bugs.ByRule(b.Report.Finding.Rule); ok && e.Link != "" && b.Report.Finding.Verdict != verdict.Allowed {
		b.Known = &knownBug{ID: e.Bug, Link: e.Link}
	}
	if b.Report.Finding.Oracle == "troc" && len(b.Report.Details) > 0 {
		var d struct {
			Want, May, Got []target.Row
			SQL            string `json:"sql"`
			Conn           int    `json:"conn"`
			Step           *int   `json:"step"`
		}
		if json.Unmarshal(b.Report.Details, &d) == nil {
			if len(d.Want)+len(d.May)+len(d.Got) > 0 {
				b.Troc = &trocRows{Want: d.Want, May: d.May, Got: d.Got, SQL: d.SQL}
			}
			if d.Step != nil && b.SchedOf == "case.txn" {
				b.Focus, b.FocusConn = *d.Step, d.Conn
			}
			if b.Report.Finding.Kind == "incorrect-blocking" && d.Step != nil {
				b.Blocking = blockingOf(b, *d.Step, d.Conn, d.SQL)
			}
		}
	}
	return b, nil
}

// blockingOf is the expected and the actual wait of the statement at step
// (1-based, as the finding counts) of the bundle's schedule (nil when the
// schedule is of another case).
func blockingOf(b *Bundle, step, conn int, sql string) *blocking {
	if b.Sched == nil || b.SchedOf != "case.txn" {
		return nil
	}
	for _, ev := range b.Sched.Events {
		if ev.Step != step-1 || ev.Conn != conn || ev.Added || ev.Implicit {
			continue
		}
		bl := &blocking{Conn: conn, SQL: sql, Actual: executor.Outcome(ev)}
		if ev.Status == executor.StatusBlocked {
			bl.Actual = "it waited for a lock (BLOCKED)"
			bl.Expected = "it runs without waiting: on the view its DBMS documents, no other transaction holds a lock it needs"
		} else {
			bl.Actual = "it ran without waiting: " + bl.Actual
			bl.Expected = "it waits (BLOCKED) until another transaction releases a lock it needs"
		}
		return bl
	}
	return nil
}

// countSteps counts the steps of a case file's text (0 when it does not
// read as one).
func countSteps(text string) int {
	c, err := testcase.ParseString("case", text)
	if err != nil {
		return 0
	}
	return len(c.Steps)
}

// BugReport is a block to paste into a DBMS's bug tracker (package
// upstream's paste block): the DBMS, version and level, the case's
// statements per connection, which statement went wrong, what was
// expected of it and what happened.
func (b *Bundle) BugReport() string {
	c, err := testcase.ParseString("case.txn", b.Case)
	if err != nil || b.Report.Finding.Kind == "" || len(c.Steps) == 0 {
		return "" // no finding or no case to report (a file not shown)
	}
	r := b.Report
	f := upstream.Finding{Level: r.Finding.Isolation, Kind: r.Finding.Kind, Summary: r.Finding.Summary, Rule: r.Finding.Rule, Case: c, Details: r.Details}
	if r.DB != nil {
		f.DBMS, f.Version, f.Settings, f.Server = r.DB.DBMS, r.DB.Version, r.DB.Settings, r.DB.Server
	} else {
		f.DBMS = r.Target
	}
	if b.Sched != nil && b.SchedOf == "case.txn" {
		f.Events = b.Sched.Events
	}
	return upstream.Paste(f)
}

// Timeline is the schedule drawn as inline SVG: one lane per connection,
// one column per event in completion order.
func (b *Bundle) Timeline() template.HTML {
	if b.Sched == nil || len(b.Sched.Events) == 0 {
		return ""
	}
	return template.HTML(timeline(b.Sched.Events, b.Focus-1, b.FocusConn))
}

// WriteBundle renders one bundle directory's report.html (txlab report
// BUNDLE_DIR: a bundle copied out of its campaign's directory, or one just
// reduced) and returns its path. Its count is the one the campaign's
// summary beside it records, else 1.
func WriteBundle(dir string) (string, error) {
	b, err := readBundle(dir)
	if err != nil {
		return "", err
	}
	b.Count = 1
	if data, err := report.ReadFileMax(filepath.Join(filepath.Dir(filepath.Clean(dir)), report.SummaryFile), report.MaxPageJSON); err == nil {
		var sum []report.SignatureCount
		if json.Unmarshal(data, &sum) == nil {
			for _, s := range sum {
				if s.Dir != "" && filepath.Base(s.Dir) == filepath.Base(filepath.Clean(dir)) {
					b.Count = max(s.Count, 1)
				}
			}
		}
	}
	path := filepath.Join(dir, report.PageFile)
	return path, writePage(path, b)
}

// WriteRun ends a campaign's report: it saves w's signature counts beside
// the bundles and renders the report over its directory. It returns the
// index's path, "" when the run wrote nothing there.
func WriteRun(w *report.Writer) (string, error) {
	if w == nil || len(w.Summary()) == 0 {
		return "", nil
	}
	if err := w.SaveSummary(); err != nil {
		return "", err
	}
	dir := w.Dir
	if dir == "" {
		dir = report.DefaultDir
	}
	return Write(dir)
}

// notShownPrefix starts the text a page shows in place of a file past the
// bound of what a page shows.
const notShownPrefix = "(not shown: "

// notShown is that text for the file name, bound limit.
func notShown(name string, limit int64) string {
	return fmt.Sprintf("%s%s is larger than the %d MiB a page shows; it is in the bundle's directory)", notShownPrefix, name, limit>>20)
}

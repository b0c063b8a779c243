// Package report writes what the oracles found: the finding bundles under
// --out (one per new signature, repeats counted) and the suppression files
// that turn known problems' findings into verdict known.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// DefaultDir is where finding bundles go when --out is not given.
const DefaultDir = "txlab-reports"

// Bundle is a finding's evidence (evidence.Bundle): the oracles build it
// without importing report, which renders it.
type Bundle = evidence.Bundle

// Files of a bundle directory and of the directory holding the bundles.
const (
	// ScheduleFile holds Bundle.Schedule.
	ScheduleFile = "schedule.json"
	// PageFile is a bundle's page of the HTML report (txlab report).
	PageFile = "report.html"
	// SummaryFile, beside the bundles, counts each signature's findings
	// (Writer.SaveSummary).
	SummaryFile = "summary.json"
)

// Schedule is schedule.json: the events in the order the DBMS completed
// them and the final state.
type Schedule struct {
	Events     []executor.Event `json:"events"`
	FinalState target.State     `json:"final_state,omitempty"`
	Hang       bool             `json:"hang,omitempty"`
}

// ScheduleJSON is the schedule.json text of execution r.
func ScheduleJSON(r *executor.Result) ([]byte, error) {
	js, err := json.MarshalIndent(Schedule{Events: r.Events, FinalState: r.Final, Hang: r.Hang}, "", "  ")
	return append(js, '\n'), err
}

// Report is report.json.
type Report struct {
	Finding   verdict.Finding `json:"finding"`
	Signature string          `json:"signature"`
	StmtKinds []string        `json:"stmt_kinds,omitempty"`
	// Target is the DBMS and version the finding was made on, DB the
	// target as the command line named it; Found when.
	Target  string          `json:"target,omitempty"`
	DB      *DB             `json:"db,omitempty"`
	Found   time.Time       `json:"found"`
	Details json.RawMessage `json:"details,omitempty"`
	// Replay is the command that reproduces the finding: txlab run with
	// the target, its settings, the level, the oracle and its judging
	// flags, on the bundle directory.
	Replay string `json:"replay,omitempty"`
	// Also are the findings of other oracles with the same cause, whose
	// evidence the bundle holds beside its own (Writer.Write).
	Also []Also `json:"also,omitempty"`
}

// Also is another oracle's finding of a bundle's cause: its finding and
// the bundle's files that hold its evidence (ORACLE-report.txt, …).
type Also struct {
	Finding verdict.Finding `json:"finding"`
	Files   []string        `json:"files"`
}

// DB is the exact target a finding was made on: the --db spec as the command
// line gave it and the server it resolved to.
type DB struct {
	// Spec is --db as given (postgres@18, postgres@/usr/lib/postgresql/15/bin,
	// a URL without its password).
	Spec string `json:"spec"`
	// DBMS and Version are what the server reported (target.Info): the
	// full version string.
	DBMS    string `json:"dbms"`
	Version string `json:"version"`
	// Settings are the throwaway server's --set settings.
	Settings []string `json:"settings,omitempty"`
	// Server are the settings the semantics table reads as the server had
	// them (name=value, sorted): innodb_snapshot_isolation decides
	// MariaDB's outcome at REPEATABLE READ, and a maintainer asks first.
	Server []string `json:"server_settings,omitempty"`
}

// Line is report.txt's line naming the target:
// "target: postgres@18 (postgres 18.4), --set max_connections=200".
func (d *DB) Line() string {
	s := fmt.Sprintf("target: %s (%s %s)", d.Spec, d.DBMS, d.Version)
	for i, kv := range d.Settings {
		if i == 0 {
			s += ","
		}
		s += " --set " + kv
	}
	return s
}

// reserved are the file names the writer itself produces.
var reserved = map[string]bool{"case.txn": true, "report.txt": true, "report.json": true, ScheduleFile: true, PageFile: true}

// SignatureCount is one line of the summary: one cause (Writer.Write),
// named by the signature of its first finding.
type SignatureCount struct {
	Signature string          `json:"signature"`
	Verdict   verdict.Verdict `json:"verdict"`
	Rule      string          `json:"rule,omitempty"`
	Count     int             `json:"count"`
	// Dir is the bundle written for the first finding with this signature
	// ("" for a known finding whose bundle was not kept).
	Dir string `json:"dir"`
	// KnownAs is the suppression entry that matched (verdict known).
	KnownAs string `json:"known_as,omitempty"`
	// Cause is what the findings counted here have in common beyond
	// their signature: the known bug their rule belongs to, or the rule;
	// "" when only the signature joins them.
	Cause string `json:"cause,omitempty"`
	// ByOracle counts the findings by oracle, when more than one oracle
	// found the cause.
	ByOracle map[string]int `json:"by_oracle,omitempty"`
}

// Writer writes one directory per new finding signature under Dir and counts
// repeats. It is safe for concurrent use by several fuzz workers.
type Writer struct {
	Dir string // default DefaultDir
	// Target names the DBMS and version in report.json.
	Target string
	// DB, when set, is the exact target: report.json's db and a line of
	// report.txt.
	DB *DB
	// Suppress turns the findings it matches into verdict known.
	Suppress *Suppressions
	// KeepKnown writes bundles for known findings too.
	KeepKnown bool
	// KeepAllowed writes bundles for allowed findings (documented
	// behaviour) too; without it they are only counted.
	KeepAllowed bool
	// Replay are the txlab run flags of the target and of judging that
	// reproduce this writer's findings (--db, --set, --model, --strict);
	// each bundle adds its level and oracle (ReplayFlags).
	Replay []string
	// KnownBug names the known bug a rule belongs to (bugs.CauseOf), ""
	// for none: findings whose rules name one bug are one cause, whichever
	// oracle found them. Nil: a rule named after an issue is its own cause.
	KnownBug func(rule string) string
	// NoFiles counts, signs and suppresses the findings and writes no
	// bundle (a replay of a bundle, which would only copy it).
	NoFiles bool

	mu   sync.Mutex
	seen map[string]*SignatureCount // by cause key (causeKey)
	keys []string                   // cause keys in first-seen order
	sigs map[string]bool            // the signatures recorded (Seen)
	n    int                        // number of the last directory written
	// scanned is set once the numbers already used in Dir are known.
	scanned bool
}

// Write records the bundle's finding. For a new signature it writes the
// bundle directory and returns its path with dup false; for a known one it
// only counts it and returns the first bundle's path with dup true. The
// finding's Dir is set on the returned copy either way.
func (w *Writer) Write(b Bundle) (f verdict.Finding, dup bool, err error) {
	for name := range b.Extra {
		if name != filepath.Base(name) || name == "." || name == ".." || reserved[name] {
			return b.Finding, false, fmt.Errorf("bundle file name %q is not allowed", name)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen, w.sigs = map[string]*SignatureCount{}, map[string]bool{}
	}
	sig := b.Signature()
	b.Finding.Signature = sig
	w.sigs[sig] = true
	if by := w.Suppress.Match(sig, b.Finding.Rule); by != "" {
		b.Finding.Verdict, b.Finding.KnownAs = verdict.Known, by
	}
	cause, key := w.causeKey(&b)
	if sc, ok := w.seen[key]; ok {
		sc.Count++
		b.Finding.Dir = sc.Dir
		if err := w.addEvidence(sc, &b); err != nil {
			return b.Finding, true, err
		}
		return b.Finding, true, nil
	}
	sc := &SignatureCount{Signature: sig, Verdict: b.Finding.Verdict, Rule: b.Finding.Rule, Count: 1, KnownAs: b.Finding.KnownAs,
		Cause: cause, ByOracle: map[string]int{b.Finding.Oracle: 1}}
	if w.NoFiles || b.Finding.Verdict == verdict.Known && !w.KeepKnown || b.Finding.Verdict == verdict.Allowed && !w.KeepAllowed {
		w.seen[key] = sc
		w.keys = append(w.keys, key)
		return b.Finding, false, nil
	}
	root := w.Dir
	if root == "" {
		root = DefaultDir
	}
	w.n++
	dir, err := w.freeDir(root, b.Finding)
	if err != nil {
		return b.Finding, false, err
	}
	b.Finding.Dir = dir
	if err := writeBundle(dir, &b, w.Target, w.DB, ReplayFlags(w.Replay, b.Finding)); err != nil {
		// Half a bundle would pass for a finding whose case is missing;
		// the directory is this writer's own, made just above.
		os.RemoveAll(dir)
		return b.Finding, false, err
	}
	sc.Dir = dir
	w.seen[key] = sc
	w.keys = append(w.keys, key)
	return b.Finding, false, nil
}

// freeDir picks a directory name that does not exist yet, so that several
// runs can share one --out directory without overwriting each other.
func (w *Writer) freeDir(root string, f verdict.Finding) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("report directory: %w", err)
	}
	if !w.scanned {
		// Continue the numbering of an earlier run in the same directory.
		w.scanned = true
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			var k int
			if _, err := fmt.Sscanf(e.Name(), "%04d-", &k); err == nil && k >= w.n {
				w.n = k + 1
			}
		}
	}
	base := fmt.Sprintf("%s-%s-%s", f.Oracle, f.Kind, f.Verdict)
	for ; ; w.n++ {
		dir := filepath.Join(root, fmt.Sprintf("%04d-%s", w.n, base))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) {
			return "", fmt.Errorf("report directory: %w", err)
		}
	}
}

// HangOracle and HangKind name the finding of a case that did not finish
// within its bound (package fuzz saves one per hung case).
const (
	HangOracle = "executor"
	HangKind   = "hang"
)

// ReplayFlags are the txlab run flags that reproduce finding f: the
// writer's (target, judging) with f's level and oracle. A hang is no
// oracle's: the plain run shows it, so it names none.
func ReplayFlags(common []string, f verdict.Finding) []string {
	flags := slices.Clone(common)
	if f.Isolation != "" && f.Isolation != "mixed" {
		flags = append(flags, "--isolation", f.Isolation)
	}
	if f.Oracle == HangOracle && f.Kind == HangKind {
		return flags
	}
	return append(flags, "--oracle", f.Oracle)
}

// ShellJoin quotes args for a POSIX shell where they need it.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:@+%") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// reportText is report.txt: the oracle's text with the target's line after
// its headline (which names the DBMS and level).
func reportText(b *Bundle, db *DB) string {
	text := b.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if db != nil {
		head, rest, _ := strings.Cut(text, "\n")
		if head == "" && rest == "" {
			text = db.Line() + "\n"
		} else {
			text = head + "\n" + db.Line() + "\n" + rest
		}
	}
	return text
}

func writeBundle(dir string, b *Bundle, targetName string, db *DB, replay []string) error {
	files := map[string][]byte{}
	text := reportText(b, db)
	if b.Case != nil {
		withReplay := *b.Case
		withReplay.Replay = ShellJoin(replay)
		c := withReplay.String()
		// Said, not fatal: a comment shaped like a header ("-- key: value")
		// once made every IsoRel case.txn unreadable, and nobody noticed.
		if _, err := testcase.ParseString("case.txn", c); err != nil {
			text += fmt.Sprintf("\nWARNING: case.txn does not read back (%v); this is a txlab bug.\n", err)
		}
		files["case.txn"] = []byte(c)
	}
	files["report.txt"] = []byte(text)
	details, err := json.Marshal(b.Details)
	if err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	if string(details) == "null" {
		details = nil
	}
	js, err := json.MarshalIndent(Report{Finding: b.Finding, Signature: b.Finding.Signature, StmtKinds: b.StmtKinds,
		Target: targetName, DB: db, Found: time.Now().UTC().Truncate(time.Second), Details: details,
		Replay: "txlab run " + ShellJoin(append(replay, dir))}, "", "  ")
	if err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	files["report.json"] = append(js, '\n')
	if b.Schedule != nil {
		js, err := ScheduleJSON(b.Schedule)
		if err != nil {
			return fmt.Errorf("%s: %w", ScheduleFile, err)
		}
		files[ScheduleFile] = js
	}
	maps.Copy(files, upstreamFiles(b, db))
	for name, data := range b.Extra {
		files[name] = data
	}
	// report.json last: it is what makes a directory a bundle to txlab
	// report and txlab reduce.
	names := slices.Sorted(maps.Keys(files))
	names = append(slices.DeleteFunc(names, func(n string) bool { return n == "report.json" }), "report.json")
	for _, name := range names {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Known reports whether a finding with b's signature was recorded already.
func (w *Writer) Known(b *Bundle) bool {
	return w.Seen(b.Signature())
}

// Seen reports whether a finding with signature sig was recorded already:
// an oracle given it can skip costly work (a confirming replay) for a
// repeat, which the writer only counts. It only reads; a nil writer has
// seen nothing.
func (w *Writer) Seen(sig string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sigs[sig]
}

// Save writes the bundles of the findings an oracle returned, in order,
// and puts what Write returned (signature, directory, suppression) in
// their place: findings[i] is evidence[i].Finding. A nil writer keeps the
// findings as they are.
func (w *Writer) Save(findings []verdict.Finding, evidence []Bundle) error {
	if w == nil {
		return nil
	}
	if len(findings) != len(evidence) {
		return fmt.Errorf("report: %d findings with %d bundles", len(findings), len(evidence))
	}
	for i, b := range evidence {
		f, _, err := w.Write(b)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Finding.Oracle, err)
		}
		findings[i] = f
	}
	return nil
}

// Sign gives each finding the signature of its bundle without writing
// anything (what a reduction matches its candidates' findings by):
// findings[i] is evidence[i].Finding.
func Sign(findings []verdict.Finding, evidence []Bundle) {
	for i := range findings {
		if i < len(evidence) {
			findings[i].Signature = evidence[i].Signature()
		}
	}
}

// Summary returns the signatures seen so far with their counts, in the
// order they were first seen.
func (w *Writer) Summary() []SignatureCount {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]SignatureCount, 0, len(w.keys))
	for _, k := range w.keys {
		sc := *w.seen[k]
		if len(sc.ByOracle) < 2 {
			sc.ByOracle = nil // one oracle: its signature says which
		} else {
			sc.ByOracle = maps.Clone(sc.ByOracle)
		}
		out = append(out, sc)
	}
	return out
}

// WriteSummary prints the summary, one signature per line, bugs first and
// known findings last.
func (w *Writer) WriteSummary(out io.Writer) {
	WriteSignatures(out, w.Summary(), w.Suppress)
}

// WriteSignatures prints signature counts as Writer.WriteSummary does,
// with what each entry of supp matched; the names in them (directories,
// suppress entries) are printed terminal-safe (termsafe).
func WriteSignatures(out io.Writer, sum []SignatureCount, supp *Suppressions) {
	sum = slices.Clone(sum)
	sort.SliceStable(sum, func(i, j int) bool { return rank(sum[i].Verdict) < rank(sum[j].Verdict) })
	if len(sum) == 0 {
		fmt.Fprintln(out, "no findings")
		return
	}
	unbundled, kinds := 0, 0 // counted without a bundle, not known: allowed
	for _, s := range sum {
		where := "→ " + s.Dir
		switch {
		case s.Verdict == verdict.Known:
			where = "known: " + s.KnownAs
			if s.Dir != "" {
				where += " → " + s.Dir
			}
		case s.Dir == "" && s.Verdict == verdict.Allowed:
			unbundled += s.Count
			kinds++
			continue
		case s.Dir == "":
			where = "(no bundle)"
		}
		fmt.Fprintf(out, "%5d× %s %s%s\n", s.Count, termsafe.Line(s.Signature), termsafe.Line(where), termsafe.Line(byOracleText(s.ByOracle)))
	}
	if unbundled > 0 {
		fmt.Fprintf(out, "%5d× allowed (documented behaviour, %d signature%s): counted, no bundle (--keep-allowed writes them)\n",
			unbundled, kinds, map[bool]string{true: "", false: "s"}[kinds == 1])
	}
	// What each --suppress entry matched: an entry that matched nothing,
	// or far more than expected, is worth a look.
	for _, c := range supp.Counts(sum) {
		fmt.Fprintf(out, "--suppress %s: %d finding%s\n", termsafe.Line(c.Entry), c.Findings, map[bool]string{true: "", false: "s"}[c.Findings == 1])
	}
}

// SaveSummary writes the signature counts to SummaryFile in the writer's
// directory, for the HTML report. Entries an earlier run sharing the
// directory saved for other bundles are kept.
func (w *Writer) SaveSummary() error {
	root := w.Dir
	if root == "" {
		root = DefaultDir
	}
	mine := w.Summary()
	if len(mine) == 0 {
		return nil
	}
	path := filepath.Join(root, SummaryFile)
	var all []SignatureCount
	if data, err := ReadFile(path); err == nil {
		json.Unmarshal(data, &all) // a damaged file is rewritten
	}
	key := func(s SignatureCount) string {
		if s.Dir == "" { // counted without a bundle: known, or allowed
			return "unbundled " + s.Signature
		}
		return s.Dir
	}
	index := map[string]int{}
	for i, s := range all {
		index[key(s)] = i
	}
	for _, s := range mine {
		if i, ok := index[key(s)]; ok {
			if s.Dir == "" {
				s.Count += all[i].Count
			}
			all[i] = s
			continue
		}
		all = append(all, s)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(js, '\n'), 0o644)
}

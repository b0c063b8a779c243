package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/verdict"
)

// causeKey is what joins b's finding to the findings before it into one
// bundle and one summary row: one bug, one finding, whichever oracles
// found it. The cause is, in order,
//
//   - the known bug b's rule belongs to (Writer.KnownBug: the corpus
//     entry whose rule header names it), or
//   - the rule itself, when it is named after an issue or b says its kind
//     and rule name its cause (Bundle.OneCause), or
//   - the rule with the statement kinds and the level, when the rule is a
//     general one: two oracles that see the same statements break the
//     same documented rule at the same level found one thing, while a
//     finding of other statements under that rule stays a row of its own
//     (a second bug must not hide behind the first's bundle).
//
// A finding without a rule is joined by its signature only, and a Unique
// one by nothing. The verdict, after suppression, is always part of the
// key: a known finding never hides a new one. cause is "" when only the
// signature joins.
func (w *Writer) causeKey(b *Bundle) (cause, key string) {
	f := b.Finding
	switch {
	case b.Unique:
		return "", fmt.Sprintf("unique %d %s", len(w.keys), f.Signature)
	case w.KnownBug != nil && w.KnownBug(f.Rule) != "":
		cause = w.KnownBug(f.Rule)
	case f.Rule != "" && (b.OneCause || evidence.NamedAfterIssue(f.Rule)):
		cause = f.Rule
	case f.Rule != "":
		kinds := slices.Clone(b.StmtKinds)
		sort.Strings(kinds)
		cause = strings.Join(append([]string{f.Rule, f.Isolation}, slices.Compact(kinds)...), " ")
	default:
		return "", "signature " + f.Signature
	}
	return cause, "cause " + cause + " " + string(f.Verdict)
}

// addEvidence records b, a finding of sc's cause, in sc's bundle: the
// first finding of each further oracle adds its evidence beside the
// bundle's own, as ORACLE-report.txt, ORACLE-case.txn, ORACLE-finding.json,
// ORACLE-schedule.json and ORACLE-NAME for its other files, and names them
// in report.json's also and at the end of report.txt. Repeats are counted
// only. Files rather than a directory: a bundle is its directory's plain
// files (txlab report --out copies those).
func (w *Writer) addEvidence(sc *SignatureCount, b *Bundle) error {
	o := b.Finding.Oracle
	first := sc.ByOracle[o] == 0
	sc.ByOracle[o]++
	if !first || sc.Dir == "" || w.NoFiles {
		return nil
	}
	prefix := plainName(o) + "-"
	files := map[string][]byte{prefix + "report.txt": []byte(reportText(b, w.DB))}
	if b.Case != nil {
		files[prefix+"case.txn"] = []byte(b.Case.String())
	}
	details, err := json.Marshal(b.Details)
	if err != nil {
		return fmt.Errorf("%sfinding.json: %w", prefix, err)
	}
	if string(details) == "null" {
		details = nil
	}
	js, err := json.MarshalIndent(struct {
		Finding   verdict.Finding `json:"finding"`
		Signature string          `json:"signature"`
		StmtKinds []string        `json:"stmt_kinds,omitempty"`
		Details   json.RawMessage `json:"details,omitempty"`
	}{b.Finding, b.Finding.Signature, b.StmtKinds, details}, "", "  ")
	if err != nil {
		return fmt.Errorf("%sfinding.json: %w", prefix, err)
	}
	files[prefix+"finding.json"] = append(js, '\n')
	if b.Schedule != nil {
		js, err := ScheduleJSON(b.Schedule)
		if err != nil {
			return fmt.Errorf("%s%s: %w", prefix, ScheduleFile, err)
		}
		files[prefix+ScheduleFile] = js
	}
	for name, data := range b.Extra {
		files[prefix+name] = data
	}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(sc.Dir, name)); err == nil {
			return fmt.Errorf("bundle %s already has %s", sc.Dir, name)
		}
		if err := atomicfile.WriteFile(filepath.Join(sc.Dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	// The bundle's own files say where the other oracle's evidence is.
	text, err := ReadFile(filepath.Join(sc.Dir, "report.txt"))
	if err != nil {
		return err
	}
	text = fmt.Appendf(text, "\nAlso found by %s (%s, rule %s, verdict %s): its evidence is in %sreport.txt and %scase.txn.\n",
		o, b.Finding.Kind, b.Finding.Rule, b.Finding.Verdict, prefix, prefix)
	if err := atomicfile.WriteFile(filepath.Join(sc.Dir, "report.txt"), text, 0o644); err != nil {
		return err
	}
	path := filepath.Join(sc.Dir, "report.json")
	data, err := ReadFile(path)
	if err != nil {
		return err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r.Also = append(r.Also, Also{Finding: b.Finding, Files: names})
	js, err = json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(js, '\n'), 0o644)
}

// byOracleText is " (troc 3, wss 1)" for a cause more than one oracle
// found, "" otherwise.
func byOracleText(by map[string]int) string {
	if len(by) < 2 {
		return ""
	}
	var parts []string
	for _, o := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %d", o, by[o]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

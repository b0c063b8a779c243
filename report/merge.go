package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/verdict"
)

// Merge gathers the bundle directories of several campaigns (the --out of
// each shard, each machine) into dst: one bundle per signature, the first
// found in srcs' order, and every signature's findings summed in dst's
// summary.json (a source without summary.json counts one per bundle).
// dst must not exist yet or be empty: merging never overwrites a finding.
// Only regular files of a bundle are copied (a link is not followed). A
// source that does not exist is a campaign that found nothing (it writes
// no directory then): it is skipped and named in missing.
func Merge(dst string, srcs []string) (bundles int, missing []string, err error) {
	entries, err := os.ReadDir(dst)
	if err == nil && len(entries) > 0 {
		return 0, nil, fmt.Errorf("%s is not empty: merge into a new directory", dst)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, nil, err
	}
	created := err != nil
	merged, missing, err := MergeInto(dst, srcs)
	if err != nil && created {
		// A failed merge leaves no directory of its own making behind,
		// half-merged or empty; the sources are untouched.
		os.RemoveAll(dst)
	}
	for _, s := range merged {
		if s.Dir != "" {
			bundles++
		}
	}
	return bundles, missing, err
}

// MergeInto is Merge into a directory that may hold other campaigns'
// bundles already, as a fuzz --out directory that several runs share
// (fuzz --procs merges its worker processes' directories into its --out):
// the merged bundles continue dst's numbering, and its summary.json keeps
// the other bundles' entries, as a Writer's SaveSummary does. merged are
// the signatures of srcs, each with its count and its bundle in dst.
func MergeInto(dst string, srcs []string) (merged []SignatureCount, missing []string, err error) {
	absDst, _ := filepath.Abs(dst)
	for _, src := range srcs {
		if abs, _ := filepath.Abs(src); abs == absDst {
			return nil, nil, fmt.Errorf("%s is among the directories to merge", dst)
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, nil, err
	}
	var prior []SignatureCount
	if data, err := ReadFile(filepath.Join(dst, SummaryFile)); err == nil {
		json.Unmarshal(data, &prior) // a damaged file is rewritten, as SaveSummary does
	}
	n := 0 // the number of the last bundle directory in dst
	entries, err := os.ReadDir(dst)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "%04d-", &k); err == nil && k > n {
			n = k
		}
	}
	var out []SignatureCount
	index := map[string]int{} // cause or signature (counted without a bundle: "unbundled " + signature) → out
	add := func(s SignatureCount) {
		key := mergeKey(s)
		if i, ok := index[key]; ok {
			out[i].Count += s.Count
			return
		}
		index[key] = len(out)
		out = append(out, s)
	}
	for _, src := range srcs {
		if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, src)
			continue
		}
		counts := map[string]int{}     // bundle directory name → its count
		causes := map[string]string{}  // bundle directory name → its cause
		var unbundled []SignatureCount // known findings, and allowed ones without --keep-allowed
		if data, err := ReadFile(filepath.Join(src, SummaryFile)); err == nil {
			var sum []SignatureCount
			if err := json.Unmarshal(data, &sum); err != nil {
				return nil, missing, fmt.Errorf("%s: %w", filepath.Join(src, SummaryFile), err)
			}
			for i, s := range sum {
				if s.Count < 1 {
					// A campaign writes only positive counts: the file was
					// edited, and a sum with it would say less than was found.
					return nil, missing, fmt.Errorf("%s: entry %d (%s) counts %d findings: not a count txlab writes", filepath.Join(src, SummaryFile), i+1, termsafe.Line(s.Signature), s.Count)
				}
				if s.Dir == "" {
					unbundled = append(unbundled, s)
					continue
				}
				counts[filepath.Base(s.Dir)] += s.Count
				causes[filepath.Base(s.Dir)] = s.Cause
			}
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return nil, missing, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			dir := filepath.Join(src, e.Name())
			data, err := ReadFile(filepath.Join(dir, "report.json"))
			if errors.Is(err, fs.ErrNotExist) {
				continue // not a bundle
			}
			if err != nil {
				return nil, missing, err
			}
			var r Report
			if err := json.Unmarshal(data, &r); err != nil {
				return nil, missing, fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
			}
			count := max(counts[e.Name()], 1)
			sc := SignatureCount{Signature: r.Signature, Verdict: r.Finding.Verdict, Rule: r.Finding.Rule, Count: count, Dir: "(merged)", KnownAs: r.Finding.KnownAs, Cause: causes[e.Name()]}
			if _, seen := index[mergeKey(sc)]; seen {
				// The same cause as a bundle of another part: one row.
				add(sc)
				continue
			}
			n++
			// The name's parts come from a file that may come from anyone:
			// only plain characters, so the copy stays inside dst.
			to := filepath.Join(dst, fmt.Sprintf("%04d-%s-%s-%s", n, plainName(r.Finding.Oracle), plainName(r.Finding.Kind), plainName(string(r.Finding.Verdict))))
			if err := copyBundle(dir, to); err != nil {
				return nil, missing, err
			}
			sc.Dir = to
			add(sc)
		}
		for _, k := range unbundled {
			add(k)
		}
	}
	slices.SortStableFunc(out, func(a, b SignatureCount) int { return rank(a.Verdict) - rank(b.Verdict) })
	all := slices.Clone(prior)
	for _, s := range out {
		// Findings counted without a bundle add to an earlier run's count
		// of the signature; a bundle is an entry of its own.
		i := slices.IndexFunc(all, func(p SignatureCount) bool { return s.Dir == "" && p.Dir == "" && p.Signature == s.Signature })
		if i < 0 {
			all = append(all, s)
			continue
		}
		all[i].Count += s.Count
	}
	slices.SortStableFunc(all, func(a, b SignatureCount) int { return rank(a.Verdict) - rank(b.Verdict) })
	js, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, missing, err
	}
	return out, missing, atomicfile.WriteFile(filepath.Join(dst, SummaryFile), append(js, '\n'), 0o644)
}

// mergeKey is what joins the parts' entries into one: the cause a writer
// recorded (Writer.Write), else the signature; counted without a bundle,
// the signature only.
func mergeKey(s SignatureCount) string {
	switch {
	case s.Dir == "":
		return "unbundled " + s.Signature
	case s.Cause != "":
		return "cause " + s.Cause + " " + string(s.Verdict)
	}
	return s.Signature
}

// rank orders verdicts as the summaries list them: bugs first, known last.
func rank(v verdict.Verdict) int {
	switch v {
	case verdict.Bug:
		return 0
	case verdict.Known:
		return 2
	}
	return 1
}

// copyBundle copies a bundle's regular files into a new directory to,
// with report.json's finding.dir naming the copy; report.json last, as a
// writer writes it (it is what makes a directory a bundle).
func copyBundle(from, to string) error {
	if err := os.Mkdir(to, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == "report.json" || e.Name() == PageFile {
			continue
		}
		data, err := ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	data, err := ReadFile(filepath.Join(from, "report.json"))
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	if f, ok := doc["finding"].(map[string]any); ok {
		f["dir"] = to
	}
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(to, "report.json"), append(js, '\n'), 0o644)
}

// plainName keeps letters, digits, '_' and '-' of s (others become '_'): a
// directory name part that cannot leave its parent.
func plainName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

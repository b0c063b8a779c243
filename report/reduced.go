package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/verdict"
)

// OrigSuffix marks the files of a reduced bundle that describe the case as
// found (report.orig.txt, report.orig.json, graph.orig.dot, …).
const OrigSuffix = ".orig"

// origName is name with OrigSuffix before its extension.
func origName(name string) string {
	ext := filepath.Ext(name)
	return name[:len(name)-len(ext)] + OrigSuffix + ext
}

// RewriteReduced makes a reduced bundle one story: report.txt, report.json
// and the oracle's extra files describe b, the finding as the reduced case's
// own run gave it, and the files of the case as found keep their contents
// as report.orig.txt, report.orig.json, … (the first reduction's: a later
// one starts from case.orig.txn again). The bundle keeps its identity: its
// directory, signature, target, replay command and when it was found. note
// ends report.txt.
func RewriteReduced(dir string, b Bundle, note string) error {
	data, err := ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return err
	}
	var was Report
	if err := json.Unmarshal(data, &was); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
	}
	names := []string{"report.txt"}
	for name := range b.Extra {
		if name != filepath.Base(name) || reserved[name] {
			return fmt.Errorf("bundle file name %q is not allowed", name)
		}
		names = append(names, name)
	}
	// report.json last, as the writer does: until it is rewritten, the
	// bundle reads as the case as found.
	for _, name := range append(names, "report.json") {
		keep := filepath.Join(dir, origName(name))
		if _, err := os.Stat(keep); err == nil {
			continue
		}
		old, err := ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(keep, old, 0o644); err != nil {
			return err
		}
	}
	f := b.Finding
	f.Dir, f.Signature, f.KnownAs = was.Finding.Dir, was.Signature, was.Finding.KnownAs
	if was.Finding.Verdict == verdict.Known {
		f.Verdict = verdict.Known
	}
	extra := map[string][]byte{}
	maps.Copy(extra, upstreamFiles(&b, was.DB))
	maps.Copy(extra, b.Extra)
	for name, content := range extra {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return err
		}
	}
	text := reportText(&b, was.DB) + note
	if err := atomicfile.WriteFile(filepath.Join(dir, "report.txt"), []byte(text), 0o644); err != nil {
		return err
	}
	details, err := json.Marshal(b.Details)
	if err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	if string(details) == "null" {
		details = nil
	}
	r := Report{Finding: f, Signature: was.Signature, StmtKinds: b.StmtKinds, Target: was.Target, DB: was.DB,
		Found: was.Found, Details: details, Replay: was.Replay}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, "report.json"), append(js, '\n'), 0o644)
}

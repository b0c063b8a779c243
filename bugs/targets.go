package bugs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
)

// TargetRun is one target's run of the corpus (txlab bugs test runs one
// per target given).
type TargetRun struct {
	Spec    string // the target as given, as txlab writes it down (no password)
	Info    target.Info
	Results []Result
	// Err says why the target's run did not finish (it did not start, its
	// server stopped answering); Results hold what ran before.
	Err error
	// Missing are the BUG ids given that are not in this target's corpus.
	Missing []string
}

// Label names the target in the table's header: the spec, or for a URL
// the DBMS.
func (r *TargetRun) Label() string {
	if strings.Contains(r.Spec, "://") && r.Info.DBMS != "" {
		return r.Info.DBMS
	}
	return r.Spec
}

// Select picks the entries of the BUG ids given (case-insensitive), in
// the ids' order; missing are the ids no entry has.
func Select(entries []Entry, ids []string) (chosen []Entry, missing []string) {
	for _, id := range ids {
		n := len(chosen)
		for _, e := range entries {
			if strings.EqualFold(e.Bug, id) {
				chosen = append(chosen, e)
			}
		}
		if len(chosen) == n {
			missing = append(missing, id)
		}
	}
	return chosen, missing
}

// Failure says why the runs failed, or nil: a target that did not finish,
// BUG ids given that ran on none of the targets, or a bug that could not
// run where its status header does not record that it cannot (on, with
// multi, the target named).
func Failure(runs []*TargetRun, multi bool) error {
	var failed []string
	for _, r := range runs {
		if r.Err != nil {
			failed = append(failed, r.Spec+": "+oneLine(r.Err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d targets did not finish: %s", len(failed), len(runs), strings.Join(failed, "; "))
	}
	if err := unrun(runs); err != nil {
		return err
	}
	for _, run := range runs {
		for _, r := range run.Results {
			for _, l := range r.Levels {
				if l.Status == Error && l.Recorded != Error {
					on := ""
					if multi {
						on = " on " + run.Spec
					}
					return fmt.Errorf("%s at %s%s could not run", r.Bug, l.Level, on)
				}
			}
		}
	}
	return nil
}

// CheckRecorded says how many bug × level statuses differ from those the
// case files' status headers record, nil when none does (bugs test
// --check).
func CheckRecorded(runs []*TargetRun) error {
	changed := 0
	var where []string
	for _, run := range runs {
		for _, r := range run.Results {
			for _, l := range r.Levels {
				if l.Changed {
					changed++
				}
			}
		}
		where = append(where, run.Info.DBMS+" "+run.Info.Version)
	}
	if changed == 0 {
		return nil
	}
	return fmt.Errorf("%d bug × level status(es) differ from the corpus's status headers for %s", changed, strings.Join(where, ", "))
}

// unrun says which BUG ids given ran on none of the targets (a MariaDB bug
// given to --db postgres@10,postgres@18), which the table alone would show
// by leaving them out.
func unrun(runs []*TargetRun) error {
	if len(runs) == 0 {
		return nil
	}
	var none []string
	for _, id := range runs[0].Missing {
		if !slices.ContainsFunc(runs[1:], func(r *TargetRun) bool { return !slices.Contains(r.Missing, id) }) {
			none = append(none, id)
		}
	}
	if len(none) == 0 {
		return nil
	}
	var of []string
	for _, id := range none {
		es, _ := Find(id)
		var dbmss []string
		for _, e := range es {
			if !slices.Contains(dbmss, e.DBMS) {
				dbmss = append(dbmss, e.DBMS)
			}
		}
		of = append(of, fmt.Sprintf("%s (a %s bug)", id, strings.Join(dbmss, "/")))
	}
	return fmt.Errorf("not in any target's corpus, so not run: %s; --dbms DBMS runs a DBMS's bugs on another", strings.Join(of, ", "))
}

// RecordStatuses writes each result's statuses, measured on info's DBMS
// version, into the status header of its case file in dir (the corpus's
// source: bugs test --record).
func RecordStatuses(dir string, info target.Info, results []Result) error {
	for _, r := range results {
		path := filepath.Join(dir, filepath.Base(r.File))
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text, err := Record(string(data), FormatStatus(info.DBMS, VersionKey(info.Version), r.Levels))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := atomicfile.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// OfBundle is the corpus bug a finding bundle's finding is: the entry
// whose rule decided its verdict, or the one a suppression matched. A
// finding that is no corpus bug is an error: bugs test BUNDLE_DIR asks
// whether that bug still reproduces, not what every bug does.
func OfBundle(dir string) (Entry, error) {
	data, err := report.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return Entry{}, fmt.Errorf("%s is not a finding bundle: %w", dir, err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return Entry{}, fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
	}
	if e, ok := ByRule(rep.Finding.Rule); ok {
		return e, nil
	}
	if rep.Finding.KnownAs != "" {
		if es, _ := Find(rep.Finding.KnownAs); len(es) > 0 {
			return es[0], nil
		}
	}
	return Entry{}, fmt.Errorf("%s: its finding (rule %s) is no bug of the corpus (txlab bugs list): txlab run %s replays it", dir, rep.Finding.Rule, dir)
}

// FindAll is Find of each id or file name, in their order; one that finds
// nothing is an error.
func FindAll(ids []string) ([]Entry, error) {
	var entries []Entry
	for _, id := range ids {
		found, err := Find(id)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no known bug or corpus file %q (txlab bugs list names them)", id)
		}
		entries = append(entries, found...)
	}
	return entries, nil
}

// SaveCases writes the entries' case files into dir (made if need be),
// as DIR/NAME.txn, and returns the paths written, those before a failure
// included.
func SaveCases(dir string, entries []Entry) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		text, err := Text(e)
		if err != nil {
			return paths, err
		}
		path := filepath.Join(dir, strings.TrimPrefix(e.File, "bugs/"))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// oneLine is an error's message on one line, for a table's cell or line:
// joined errors (several sessions failing together) are separated by "; ".
func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}

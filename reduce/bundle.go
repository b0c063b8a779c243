package reduce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Bundle files: the reduced case replaces case.txn, the case as found is
// kept beside it.
const (
	CaseFile = "case.txn"
	OrigFile = "case.orig.txn"
)

// BundleKey reads the signature of a finding bundle's report.json.
func BundleKey(dir string) (Key, error) {
	data, err := report.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return Key{}, err
	}
	var rep struct {
		Signature string `json:"signature"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return Key{}, fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
	}
	return ParseKey(rep.Signature)
}

// ReadBundleCase reads the case a bundle was found with: case.orig.txn when
// an earlier reduction kept it, else case.txn.
func ReadBundleCase(dir string) (*testcase.Case, string, error) {
	path := filepath.Join(dir, OrigFile)
	if _, err := os.Lstat(path); err != nil {
		path = filepath.Join(dir, CaseFile)
	}
	c, err := report.ParseCase(path)
	if err != nil {
		return nil, path, err
	}
	return c, path, c.Validate()
}

// Annotate sets the headers and the comment of a reduced case: where it came
// from, the finding it keeps, and what the reduction did.
func Annotate(res *Result, from string, key Key, orig *testcase.Case) {
	c := res.Case
	c.ReducedFrom = from
	c.Finding = key.String()
	c.Seed, c.DBMS = orig.Seed, orig.DBMS
	c.Known = orig.Known
	c.Comments = []string{fmt.Sprintf("Reduced by txlab reduce from %s to %s (%d runs, %.1f s);", res.Before, res.After, res.Executions, res.Elapsed.Seconds()),
		fmt.Sprintf("each smaller case was kept only when every one of %d runs gave the finding.", res.Runs)}
	if res.OutOfTime {
		c.Comments = append(c.Comments, "The time budget ran out: a smaller case may exist.")
	}
}

// Bundle reduces the case of finding bundle dir on t, keeping key's finding
// (the zero Key: the one its report.json names), and writes the result:
// case.orig.txn keeps the case as found, case.txn becomes the reduced case.
// A bundle whose case does not give the finding any more is left as it is
// (ErrNotReproduced).
func Bundle(ctx context.Context, t target.Target, dir string, key Key, opt Options) (*Result, error) {
	if key.Oracle == "" {
		k, err := BundleKey(dir)
		if err != nil {
			return nil, err
		}
		key = k
	}
	c, from, err := ReadBundleCase(dir)
	if err != nil {
		return nil, err
	}
	res, err := Reduce(ctx, t, c, key, opt)
	if err != nil {
		return nil, err
	}
	Annotate(res, OrigFile, key, c)
	if err := writeReduced(dir, from, res); err != nil {
		return nil, &WriteError{Err: err}
	}
	return res, nil
}

// WriteError is a failure to write the reduced case into its bundle (a full
// disk): unlike a case that cannot be reduced, a fault of the run.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// writeReduced puts the reduced case into bundle dir, from being the file
// the case as found was read from. Until case.txn is replaced, a failure
// leaves the bundle as it was found.
func writeReduced(dir, from string, res *Result) error {
	orig := filepath.Join(dir, OrigFile)
	if from != orig {
		if err := os.Rename(from, orig); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, CaseFile), []byte(res.Case.String()), 0o644); err != nil {
		if from != orig {
			os.Rename(orig, from)
		}
		return err
	}
	if err := writeSchedule(dir, res.Schedule); err != nil {
		return err
	}
	if res.Evidence != nil {
		// One story: the report is the reduced case's own run; the case as
		// found keeps its report in report.orig.txt and report.orig.json.
		note := fmt.Sprintf("\ncase.txn is reduced: %s → %s (txlab reduce, %.1f s); this report describes its own run. report.orig.txt (and report.orig.json) describe case.orig.txn, the case as found.\n",
			res.Before, res.After, res.Elapsed.Seconds())
		return report.RewriteReduced(dir, *res.Evidence, note)
	}
	// report.txt describes the run of the case as found.
	note := fmt.Sprintf("\ncase.txn is reduced: %s → %s (txlab reduce, %.1f s); this report describes case.orig.txn, the case as found.\n",
		res.Before, res.After, res.Elapsed.Seconds())
	text := filepath.Join(dir, "report.txt")
	old, err := report.ReadFile(text)
	if err != nil {
		return nil // a bundle without report.txt is still reduced
	}
	return atomicfile.WriteFile(text, append(old, note...), 0o644)
}

// OrigScheduleFile keeps the schedule of the case as found once schedule.json
// holds the reduced case's.
const OrigScheduleFile = "schedule.orig.json"

// writeSchedule puts the reduced case's execution in the bundle's
// schedule.json, the one of the case as found going to schedule.orig.json
// (once: a second reduction starts from case.orig.txn again).
func writeSchedule(dir string, r *executor.Result) error {
	if r == nil {
		return nil
	}
	path, orig := filepath.Join(dir, report.ScheduleFile), filepath.Join(dir, OrigScheduleFile)
	moved := false
	if _, err := os.Stat(orig); err != nil {
		if err := os.Rename(path, orig); err != nil && !os.IsNotExist(err) {
			return err
		}
		moved = true
	}
	js, err := report.ScheduleJSON(r)
	if err == nil {
		err = atomicfile.WriteFile(path, js, 0o644)
	}
	if err != nil && moved {
		// schedule.json without schedule.orig.json is what the report
		// reads as the schedule of the case as found.
		os.Rename(orig, path)
	}
	return err
}

// InPlace returns fuzz's reducer of new bug bundles (fuzz.Options.Reduce):
// it reduces a bundle's case in place with the worker's oracles, keeping
// none of the candidates' findings. A bundle whose case does not give its
// finding again (a flaky finding), that the campaign's end cuts short or
// that cannot be reduced for any reason of its own is left as found (said
// on log, when not nil); only a failed run (a lost connection) or write (a
// full disk) is an error.
func InPlace(exec executor.Options, budget time.Duration, log io.Writer) func(context.Context, target.Target, []oracle.CaseOracle, verdict.Finding) (bool, error) {
	return func(ctx context.Context, t target.Target, oracles []oracle.CaseOracle, f verdict.Finding) (bool, error) {
		var res *Result
		key, err := KeyOf(f)
		if err == nil {
			res, err = Bundle(ctx, t, f.Dir, key, Options{Oracles: oracles, Exec: exec, Budget: budget, Dialect: t.Info().Dialect})
		}
		var run *RunError
		var write *WriteError
		switch {
		case ctx.Err() != nil:
			return false, nil
		case errors.As(err, &run), errors.As(err, &write):
			return false, err
		case err != nil:
			if log != nil {
				fmt.Fprintf(log, "%s: not reduced: %v\n", f.Dir, err)
			}
			return false, nil
		}
		if log != nil {
			fmt.Fprintf(log, "%s: reduced %s → %s in %.1f s\n", f.Dir, res.Before, res.After, res.Elapsed.Seconds())
		}
		return true, nil
	}
}

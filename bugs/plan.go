package bugs

import (
	"fmt"
	"io"
	"slices"

	"github.com/txlab/txlab/internal/exitcode"
)

// CheckIDs checks bugs test's BUG ids before any server starts for
// nothing: an id in no corpus of dbms (every DBMS's corpus when dbms is
// ""), and, when the one target given names its DBMS by itself
// (targetDBMS; "" for a URL or several targets), an id that target's
// corpus lacks.
func CheckIDs(dbms string, ids []string, targetDBMS string) error {
	corpus, err := List(dbms)
	if err != nil {
		return fmt.Errorf("--dbms: %w", err)
	}
	if _, missing := Select(corpus, ids); len(missing) > 0 {
		return fmt.Errorf("no bug %s in the corpus (txlab bugs list)", missing[0])
	}
	if targetDBMS == "" || dbms != "" {
		return nil
	}
	own, err := ForTarget(targetDBMS)
	if err != nil {
		return err
	}
	if _, missing := Select(own, ids); len(missing) > 0 {
		return NoBugFor(missing[0], targetDBMS)
	}
	return nil
}

// NoBugFor says that id is no bug of dbms's corpus.
func NoBugFor(id, dbms string) error {
	return fmt.Errorf("no bug %s for %s in the corpus (txlab bugs list --dbms %s)", id, dbms, dbms)
}

// Entries are the bugs a target of targetDBMS runs: dbms's corpus when
// given, else the target's own (ForTarget), only the ids given when there
// are any; missing are the ids that corpus lacks.
func Entries(targetDBMS, dbms string, ids []string) (entries []Entry, missing []string, err error) {
	if dbms != "" {
		entries, err = List(dbms)
	} else {
		entries, err = ForTarget(targetDBMS)
	}
	if err != nil || len(ids) == 0 {
		return entries, nil, err
	}
	entries, missing = Select(entries, ids)
	return entries, missing, nil
}

// Report prints the runs to out (JSON, the table with a column per target
// when multi, else the one target's table) and returns how bugs test ends
// (exitcode): runErr (a run that ended the command; alone when nothing
// ran), exit status 2 for a failure of the runs (Failure), with check 1
// for a status that differs from the recorded one, else nil.
func Report(out io.Writer, runs []*TargetRun, asJSON, multi, check bool, runErr error) error {
	if runErr != nil && !slices.ContainsFunc(runs, func(r *TargetRun) bool { return len(r.Results) > 0 }) {
		return runErr
	}
	switch {
	case asJSON:
		if err := WriteJSON(out, runs); err != nil {
			return err
		}
	case multi:
		WriteMatrix(out, runs)
	default:
		WriteTable(out, runs)
	}
	if runErr != nil {
		return runErr
	}
	if err := Failure(runs, multi); err != nil {
		return exitcode.Fault(err)
	}
	if err := CheckRecorded(runs); check && err != nil {
		return &exitcode.Error{Code: 1, Err: err}
	}
	return nil
}

package bugs

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/txlab/txlab/target"
)

// WriteList prints the entries as a table (txlab bugs list).
func WriteList(w io.Writer, entries []Entry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUG\tKIND\tDBMS\tLEVELS\tFILE\tSYMPTOM")
	for _, e := range entries {
		levels := e.Levels
		if levels == "" && e.Case.Isolation != "" {
			levels = strings.ToLower(e.Case.Isolation.Abbrev())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Bug, e.Kind, e.DBMS, dash(levels), e.File, e.Symptom)
	}
	return tw.Flush()
}

// WriteListJSON prints the entries as JSON, one a line.
func WriteListJSON(w io.Writer, entries []Entry) error {
	enc := json.NewEncoder(w)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// WriteCases prints the entries' case files, each after a line naming it.
func WriteCases(w io.Writer, entries []Entry) error {
	for i, e := range entries {
		text, err := Text(e)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "-- %s\n%s", e.File, text)
	}
	return nil
}

// WriteJSON prints the runs' results as JSON, one a line, and after a run
// that did not finish a line with its target and why.
func WriteJSON(w io.Writer, runs []*TargetRun) error {
	enc := json.NewEncoder(w)
	for _, run := range runs {
		for _, r := range run.Results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		if run.Err != nil {
			if err := enc.Encode(struct {
				DB    string `json:"db"`
				Error string `json:"error"`
			}{run.Spec, oneLine(run.Err)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteTable prints the bug × level table of one target's run: a line per
// bug and level.
func WriteTable(w io.Writer, runs []*TargetRun) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUG\tLEVEL\tSTATUS\tVERDICT\tRECORDED\tDETAIL")
	for _, run := range runs {
		for _, r := range run.Results {
			for _, l := range r.Levels {
				rec := dash(l.Recorded)
				if l.Changed {
					rec = "CHANGED (was " + l.Recorded + ")"
				}
				detail := strings.Join(l.Rules, " ")
				switch {
				case l.Error != "":
					detail = l.Error
				case l.Status == NotReproduced && len(l.Failed) > 0:
					detail = strings.Join(l.Failed, "; ")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Bug, l.Level.Abbrev(), l.Status, dash(l.Verdict), rec, dash(detail))
			}
		}
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// statusCells are the matrix's short statuses.
var statusCells = map[string]string{
	Reproduces:    "yes",
	NotReproduced: "no",
	Error:         "error",
	Unsupported:   "n/a",
	Refused:       "refused",
}

// cell is one target's cell for a bug at a level: its status, the verdict
// when there is one, ! when it differs from the recorded status.
func cell(l LevelResult) string {
	s := statusCells[l.Status]
	if s == "" {
		s = l.Status
	}
	if l.Verdict != "" && l.Verdict != "none" {
		s += " (" + l.Verdict + ")"
	}
	if l.Changed {
		s += " !"
	}
	return s
}

// row is a row of the matrix: a bug of one DBMS at one level.
type row struct {
	dbms, bug string
	level     target.Level
}

// WriteMatrix prints the table of several targets' runs — a row per bug
// and level, grouped by the bugs' DBMS, a column per target — then each
// target's statuses compared with those the status headers record.
func WriteMatrix(w io.Writer, runs []*TargetRun) {
	rows, cells := matrix(runs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head, vers := "DBMS\tBUG\tLEVEL", "\t\t"
	for _, run := range runs {
		v := Release(run.Info.Version)
		switch {
		case run.Info.DBMS == "":
			v = "(did not start)"
		case run.Err != nil:
			v += " (stopped)"
		}
		head += "\t" + run.Label()
		vers += "\t" + v
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, vers)
	for _, row := range rows {
		line := row.dbms + "\t" + row.bug + "\t" + row.level.Abbrev()
		for i := range runs {
			c, ok := cells[i][row]
			if !ok {
				c = "—"
			}
			line += "\t" + c
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if len(rows) == 0 {
		fmt.Fprintln(w, "(no bug ran)")
	}
	fmt.Fprintln(w, "yes: reproduces, no: does not, n/a: no such level, (verdict): the strongest oracle verdict;")
	fmt.Fprintln(w, "—: not in the target's corpus; !: differs from the status recorded for that version")
	fmt.Fprintln(w)
	writeRecordedComparison(w, runs)
}

// matrix is the matrix's rows, in order, and each run's cells.
func matrix(runs []*TargetRun) ([]row, []map[row]string) {
	cells := make([]map[row]string, len(runs))
	var rows []row
	var dbmsOrder []string
	for i, run := range runs {
		cells[i] = map[row]string{}
		if d := run.Info.DBMS; d != "" && !slices.Contains(dbmsOrder, d) {
			dbmsOrder = append(dbmsOrder, d)
		}
		for _, r := range run.Results {
			for _, l := range r.Levels {
				row := row{r.DBMS, r.Bug, l.Level}
				if _, ok := cells[i][row]; !ok && !slices.Contains(rows, row) {
					rows = append(rows, row)
				}
				cells[i][row] = cell(l)
			}
		}
	}
	// The targets' own DBMSs first, in the columns' order; then the
	// DBMSs whose bugs ran on another's server (MySQL's on MariaDB).
	group := func(d string) int {
		if i := slices.Index(dbmsOrder, d); i >= 0 {
			return i
		}
		return len(dbmsOrder)
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if c := group(a.dbms) - group(b.dbms); c != 0 {
			return c
		}
		if c := strings.Compare(a.dbms, b.dbms); c != 0 {
			return c
		}
		if c := strings.Compare(a.bug, b.bug); c != 0 {
			return c
		}
		return slices.Index(target.AllLevels, a.level) - slices.Index(target.AllLevels, b.level)
	})
	return rows, cells
}

// writeRecordedComparison prints, per target, how its statuses compare with
// those the case files' status headers record for its DBMS version: how
// many match, each one that changed, how many have none recorded.
func writeRecordedComparison(w io.Writer, runs []*TargetRun) {
	fmt.Fprintln(w, "compared with the recorded statuses (status headers):")
	for _, run := range runs {
		name := run.Label()
		if run.Info.DBMS == "" {
			fmt.Fprintf(w, "  %s: did not start: %s\n", name, oneLine(run.Err))
			continue
		}
		same, none, changed := compareRecorded(run)
		parts := []string{fmt.Sprintf("%d as recorded", same)}
		if len(changed) > 0 {
			parts = append(parts, fmt.Sprintf("%d CHANGED", len(changed)))
		}
		if none > 0 {
			key := run.Info.DBMS + "-" + VersionKey(run.Info.Version)
			parts = append(parts, fmt.Sprintf("%d not recorded for %s (txlab bugs test --db %s --isolation all --record bugs)", none, key, run.Spec))
		}
		if run.Err != nil {
			parts = append(parts, "stopped: "+oneLine(run.Err))
		}
		server := run.Info.DBMS + " " + Release(run.Info.Version)
		if name != run.Info.DBMS {
			server = name + " (" + server + ")"
		}
		fmt.Fprintf(w, "  %s: %s\n", server, strings.Join(parts, ", "))
		for _, c := range changed {
			fmt.Fprintln(w, c)
		}
	}
}

// compareRecorded counts a run's statuses that are as recorded and those
// with none recorded, and says each one that changed, with why where the
// run says.
func compareRecorded(run *TargetRun) (same, none int, changed []string) {
	for _, r := range run.Results {
		for _, l := range r.Levels {
			switch {
			case l.Recorded == "":
				none++
			case l.Changed:
				c := fmt.Sprintf("    %s %s: %s, recorded %s", r.Bug, l.Level.Abbrev(), l.Status, l.Recorded)
				switch {
				case l.Error != "":
					c += " — " + oneLine(fmt.Errorf("%s", l.Error))
				case len(l.Failed) > 0:
					c += " — " + strings.Join(l.Failed, "; ")
				}
				changed = append(changed, c)
			default:
				same++
			}
		}
	}
	return same, none, changed
}

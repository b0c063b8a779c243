package wss

import (
	"slices"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
)

// TableDiff lists the rows of one table that only one side has (as
// multisets: a row present twice on one side and once on the other appears
// once here).
type TableDiff struct {
	Table      string       `json:"table"`
	OnlyActual []target.Row `json:"only_actual,omitempty"`
	OnlySerial []target.Row `json:"only_serial,omitempty"`
}

// StmtDiff is a statement whose outcome differs between the two runs.
type StmtDiff struct {
	Step   int    `json:"step"` // index into the case's steps
	Conn   int    `json:"conn"`
	SQL    string `json:"sql"`
	Actual string `json:"actual"`
	Serial string `json:"serial"`
}

// Diff is what differs between the actual run and a serial run.
type Diff struct {
	Tables []TableDiff `json:"tables,omitempty"`
	Writes []StmtDiff  `json:"writes,omitempty"`
	Reads  []StmtDiff  `json:"reads,omitempty"`
}

// Empty reports whether nothing differs.
func (d *Diff) Empty() bool { return len(d.Tables) == 0 && len(d.Writes) == 0 && len(d.Reads) == 0 }

// diffStates compares two canonical states as multisets of rows per table.
func diffStates(a, b target.State) []TableDiff {
	names := a.Tables()
	for _, n := range b.Tables() {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []TableDiff
	for _, n := range names {
		x, y := sorted(a[n]), sorted(b[n])
		var d TableDiff
		i, j := 0, 0
		for i < len(x) || j < len(y) {
			switch {
			case j == len(y) || (i < len(x) && x[i].Compare(y[j]) < 0):
				d.OnlyActual = append(d.OnlyActual, x[i])
				i++
			case i == len(x) || x[i].Compare(y[j]) > 0:
				d.OnlySerial = append(d.OnlySerial, y[j])
				j++
			default:
				i++
				j++
			}
		}
		if d.OnlyActual != nil || d.OnlySerial != nil {
			d.Table = n
			out = append(out, d)
		}
	}
	return out
}

func sorted(rows []target.Row) []target.Row {
	rows = slices.Clone(rows)
	target.SortRows(rows)
	return rows
}

// outcomes maps original step indices to the final (non-blocked) event of
// that step in a run. mapping translates the run's step indices to the
// original case's (nil: identity).
func outcomes(res *executor.Result, mapping []int) map[int]executor.Event {
	out := map[int]executor.Event{}
	for _, ev := range res.Events {
		if ev.Step < 0 || ev.Status == executor.StatusBlocked || ev.Status == executor.StatusSkipped {
			continue
		}
		s := ev.Step
		if mapping != nil {
			if s >= len(mapping) || mapping[s] < 0 {
				continue
			}
			s = mapping[s]
		}
		out[s] = ev
	}
	return out
}

func brief(ev executor.Event) string {
	if ev.Status == executor.StatusError && ev.Error != nil {
		return "error " + string(ev.Error.Class)
	}
	return "ok"
}

// sameRows compares two result sets as multisets: without ORDER BY the
// order of rows is not part of the result.
func sameRows(a, b []target.Row) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := sorted(a), sorted(b)
	for i := range x {
		if x[i].Compare(y[i]) != 0 || len(x[i]) != len(y[i]) {
			return false
		}
	}
	return true
}

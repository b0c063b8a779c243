package history

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Stmt is one SQL statement of a relational history, as the IsoRel oracle
// records it: the statement as written, the instrumented statements actually
// sent, and the row versions it observed through the hidden columns rowId
// (unique across all tables, e.g. "r17") and wList (the comma-separated
// transactions that wrote the row, oldest first, e.g. "T0,T3").
type Stmt struct {
	// SQL is the statement as the case or generator wrote it (hidden columns
	// stripped); Sent are the statements actually sent, in order (a DELETE
	// is preceded by its locking pre-read). Sent is empty when the statement
	// ran as written because it is outside the instrumentable subset.
	SQL  string   `json:"sql"`
	Sent []string `json:"sent,omitempty"`
	// Kind is the statement's first keyword: SELECT, INSERT, UPDATE, DELETE,
	// REPLACE, ... (upper case).
	Kind string `json:"kind"`
	// Reads are the row versions the statement read (a SELECT's rows, one
	// per table row joined; a locking read's rows), in result order.
	Reads []Version `json:"reads,omitempty"`
	// Deleted are the row versions the statement removed, from the locking
	// pre-read that precedes a DELETE, or a REPLACE/upsert that replaced a row.
	Deleted []Version `json:"deleted,omitempty"`
	// Inserted are the rowIds the statement created (wList "Tn").
	Inserted []string `json:"inserted,omitempty"`
	// Names are what a person calls rows this statement inserted or (in
	// the final read) holds: rowId → table and key values, "a(id=1)".
	// Explanations show these instead of rowIds; a row without one is
	// shown by its rowId.
	Names map[string]string `json:"names,omitempty"`
	// Predicate, Seen, Installed and Evaluated carry predicate reads
	// (Adya's predicate dependencies). Predicate names the WHERE of a
	// predicate read ("p1"); Seen is every version of its table the
	// statement's view held, matching or not (Version.Matches lists
	// Predicate when it matched), so a row missing from Seen was not in
	// the view at all. Installed are the versions a write statement
	// created, each with the predicates of the case it matches;
	// Evaluated names the predicates checked on Installed (a predicate
	// not named there says nothing about them).
	Predicate string    `json:"predicate,omitempty"`
	Seen      []Version `json:"seen,omitempty"`
	Installed []Version `json:"installed,omitempty"`
	Evaluated []string  `json:"evaluated,omitempty"`
	// Locking is true for SELECT … FOR UPDATE / FOR SHARE and pre-reads.
	Locking bool `json:"locking,omitempty"`
	// Aggregate is true when the statement's rows are aggregates and are
	// therefore not used for dependency inference.
	Aggregate bool `json:"aggregate,omitempty"`
	// Note says why the statement is not (fully) instrumented, e.g.
	// "INSERT … SELECT: the source rows are not recorded"; "" when it is.
	Note string `json:"note,omitempty"`
	// Table names the table of a predicate read (its Seen) and of each
	// read of the final state. Columns and Rows are set, with Table, on a
	// stress run's full read of a table: the values it returned (hidden
	// columns left out, nil for NULL), kept so that a finding's case can
	// start from the state the read saw.
	Table   string      `json:"table,omitempty"`
	Columns []string    `json:"columns,omitempty"`
	Rows    [][]*string `json:"rows,omitempty"`
	// Error is the error class when the statement failed ("" on success).
	Error string `json:"error,omitempty"`
	// Start and End are monotonic nanoseconds around the statement.
	Start int64 `json:"start,omitempty"`
	End   int64 `json:"end,omitempty"`
}

// Version is one row as a statement saw it: its rowId and its wList.
type Version struct {
	Row   string `json:"row"`
	WList string `json:"wlist"`
	// Matches are the predicates (Stmt.Predicate ids) the version
	// satisfies, in a Seen or Installed list.
	Matches []string `json:"matches,omitempty"`
}

// Match reports whether the version satisfies predicate p.
func (v Version) Match(p string) bool { return slices.Contains(v.Matches, p) }

// Writers parses the wList into transaction ids, oldest first ("T0,T3" →
// [0 3]).
func (v Version) Writers() ([]int64, error) {
	return ParseWList(v.WList)
}

// ParseWList parses a wList ("T0,T3,T7") into transaction ids. An entry
// may carry a tag after '#' ("T3#17": the statement of T3 that wrote it),
// which is ignored.
func ParseWList(s string) ([]int64, error) {
	return AppendWList(nil, s)
}

// AppendWList is ParseWList appending to dst: inference parses every
// observed wList of a history, and one allocation per version dominated it.
func AppendWList(dst []int64, s string) ([]int64, error) {
	if s == "" {
		return dst, fmt.Errorf("empty wList")
	}
	for rest := s; ; {
		part, tail, more := strings.Cut(rest, ",")
		part = strings.TrimSpace(part)
		if i := strings.IndexByte(part, '#'); i >= 0 {
			part = part[:i]
		}
		id, ok := parseTxnRef(part)
		if !ok {
			return dst, fmt.Errorf("wList %q: entry %q is not Tn", s, part)
		}
		dst = append(dst, id)
		if !more {
			return dst, nil
		}
		rest = tail
	}
}

// parseTxnRef parses "Tn" (n a non-negative decimal).
func parseTxnRef(s string) (int64, bool) {
	if len(s) < 2 || s[0] != 'T' {
		return 0, false
	}
	if len(s) > 19 { // beyond int64 digits: let strconv decide
		id, err := strconv.ParseInt(s[1:], 10, 64)
		return id, err == nil && id >= 0
	}
	var id int64
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int64(c-'0')
	}
	return id, true
}

func (s *Stmt) validate() error {
	if s.Kind == "" {
		return fmt.Errorf("missing kind")
	}
	if len(s.Seen) > 0 && s.Predicate == "" {
		return fmt.Errorf("seen versions without a predicate")
	}
	for _, vs := range [][]Version{s.Reads, s.Deleted, s.Seen, s.Installed} {
		for _, v := range vs {
			if v.Row == "" {
				return fmt.Errorf("a row version without rowId")
			}
			if _, err := v.Writers(); err != nil {
				return fmt.Errorf("row %s: %w", v.Row, err)
			}
		}
	}
	if s.End != 0 && s.End < s.Start {
		return fmt.Errorf("end %d before start %d", s.End, s.Start)
	}
	return nil
}

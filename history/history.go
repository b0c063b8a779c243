// Package history holds recorded transaction histories: transactions with an
// id, the session (connection) that ran them, a commit status, monotonic start
// and end times, and either an ordered list of micro-operations r(k, v) /
// w(k, v) (key/value histories, MT's) or the SQL statements they ran with the
// row versions each observed (relational histories, IsoRel's: isolation and
// stmts, see sql.go and README.md).
//
// Histories are stored as JSON Lines, one transaction per line:
//
//	{"id":0,"init":true,"ops":["w(1,0)","w(2,0)"]}
//	{"id":1,"session":1,"status":"ok","start":100,"end":180,"ops":["r(1,0)","w(1,11)"]}
//	{"id":2,"session":2,"status":"unknown","start":120,"ops":["r(2,0)","w(2,21)"]}
//
// Fields: id (int, unique), session (int; transactions of one session appear
// in session order), status ok|fail|unknown (default ok; unknown means the
// connection was lost before the commit outcome was known), start and end
// (monotonic nanoseconds; end 0 or absent means not known), init (true for
// the one transaction that writes every key's initial value, ⊥ in the MTC
// paper), and ops, each "r(KEY,VALUE)" or "w(KEY,VALUE)" with integer KEY
// and VALUE. Keys and values are integers because the checkers index by
// them on their hot paths; workloads map table keys onto them.
package history

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Kind is a micro-operation kind.
type Kind uint8

// Micro-operation kinds.
const (
	R Kind = iota
	W
)

// Op is one micro-operation: a read that returned Value or a write of Value.
type Op struct {
	Kind  Kind
	Key   int64
	Value int64
}

// String renders the op as r(k,v) or w(k,v), the on-disk form.
func (o Op) String() string {
	c := 'r'
	if o.Kind == W {
		c = 'w'
	}
	return fmt.Sprintf("%c(%d,%d)", c, o.Key, o.Value)
}

// Status is a transaction's commit outcome as the client saw it.
type Status uint8

// Statuses. Unknown must never be guessed into OK or Fail by the recorder:
// the checkers decide from the reads whether an unknown commit took effect.
const (
	OK Status = iota
	Fail
	Unknown
)

var statusNames = [...]string{OK: "ok", Fail: "fail", Unknown: "unknown"}

// String returns ok, fail or unknown.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// ParseStatus parses ok|fail|unknown; the empty string means ok.
func ParseStatus(s string) (Status, error) {
	switch s {
	case "ok", "":
		return OK, nil
	case "fail":
		return Fail, nil
	case "unknown":
		return Unknown, nil
	}
	return 0, fmt.Errorf("unknown status %q (want ok, fail or unknown)", s)
}

// Txn is one recorded transaction.
type Txn struct {
	ID      int64
	Session int
	Status  Status
	// Start and End are monotonic nanoseconds; End 0 means unknown.
	Start, End int64
	// Init marks the initial transaction that writes every key's first value.
	Init bool
	// Final marks a relational history's last transaction: the final
	// state, read after every other transaction ended. A row it lacks was
	// deleted (or never committed).
	Final bool
	Ops   []Op
	// Isolation is the level the transaction ran at (relational histories).
	Isolation string
	// Stmts are the SQL statements of a relational (IsoRel) transaction, in
	// order; empty in key-value (MT) histories.
	Stmts []Stmt
}

// History is a list of transactions in recording order.
type History struct {
	Txns []Txn
}

// line is the JSON shape of one transaction.
type line struct {
	ID      int64    `json:"id"`
	Session int      `json:"session,omitempty"`
	Status  string   `json:"status,omitempty"`
	Start   int64    `json:"start,omitempty"`
	End     int64    `json:"end,omitempty"`
	Init    bool     `json:"init,omitempty"`
	Final   bool     `json:"final,omitempty"`
	Ops     []string `json:"ops,omitempty"`
	// Isolation and Stmts carry relational histories (see Stmt).
	Isolation string `json:"isolation,omitempty"`
	Stmts     []Stmt `json:"stmts,omitempty"`
}

// ParseOp parses "r(k,v)" or "w(k,v)"; spaces around the numbers are allowed.
func ParseOp(s string) (Op, error) {
	var op Op
	t := strings.TrimSpace(s)
	if len(t) < 6 || t[1] != '(' || t[len(t)-1] != ')' {
		return op, fmt.Errorf("op %q: want r(KEY,VALUE) or w(KEY,VALUE)", s)
	}
	switch t[0] {
	case 'r':
		op.Kind = R
	case 'w':
		op.Kind = W
	default:
		return op, fmt.Errorf("op %q: kind must be r or w", s)
	}
	k, v, ok := strings.Cut(t[2:len(t)-1], ",")
	if !ok {
		return op, fmt.Errorf("op %q: want r(KEY,VALUE) or w(KEY,VALUE)", s)
	}
	var err error
	if op.Key, err = strconv.ParseInt(strings.TrimSpace(k), 10, 64); err != nil {
		return op, fmt.Errorf("op %q: key: %w", s, err)
	}
	if op.Value, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
		return op, fmt.Errorf("op %q: value: %w", s, err)
	}
	return op, nil
}

// Read parses a JSON Lines history. Blank lines and lines starting with # are
// skipped. Errors name the line number.
func Read(r io.Reader) (*History, error) {
	h := &History{}
	rd := NewReader(r)
	for {
		t, err := rd.Next()
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return nil, err
		}
		c := *t
		c.Ops = make([]Op, len(t.Ops))
		copy(c.Ops, t.Ops)
		h.Txns = append(h.Txns, c)
	}
}

// MaxLine is the longest line a history may have, in bytes.
const MaxLine = 16 << 20

// Reader reads a JSON Lines history one transaction at a time, with Read's
// checks (unique ids, at most one init transaction, end after start), and
// keeps only what those checks need: 8 bytes a transaction while the ids
// rise, as recorders write them. A checker that keeps its own compact copy
// of each transaction then never holds the whole history as Txns.
type Reader struct {
	sc    *bufio.Scanner
	line  int // the line last read
	inits int
	ids   idSet
	t     Txn
	ops   []Op
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	return &Reader{sc: sc}
}

// Line is the line of the transaction Next returned last.
func (rd *Reader) Line() int { return rd.line }

// Next returns the next transaction, or io.EOF after the last. The Txn and
// its Ops are the Reader's, overwritten by the next call.
func (rd *Reader) Next() (*Txn, error) {
	for rd.sc.Scan() {
		rd.line++
		n := rd.line
		trimmed := bytes.TrimSpace(rd.sc.Bytes())
		if len(trimmed) == 0 || trimmed[0] == '#' {
			rd.ids.skip()
			continue
		}
		t := &rd.t
		*t = Txn{}
		var opText []string
		var fast bool
		if rd.ops, fast = parseFast(trimmed, t, rd.ops[:0]); !fast {
			rd.ops = rd.ops[:0] // what parseFast appended before it gave up
			var l line
			dec := json.NewDecoder(bytes.NewReader(trimmed))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&l); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if dec.More() {
				return nil, fmt.Errorf("line %d: trailing data after the JSON object", n)
			}
			st, err := ParseStatus(l.Status)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			*t = Txn{ID: l.ID, Session: l.Session, Status: st, Start: l.Start, End: l.End, Init: l.Init, Final: l.Final, Isolation: l.Isolation, Stmts: l.Stmts}
			opText = l.Ops
		}
		if prev, dup := rd.ids.add(t.ID, n); dup {
			return nil, fmt.Errorf("line %d: transaction id %d already used on line %d", n, t.ID, prev)
		}
		if t.Init {
			rd.inits++
			if rd.inits > 1 {
				return nil, fmt.Errorf("line %d: a second init transaction", n)
			}
			if t.Status != OK {
				return nil, fmt.Errorf("line %d: the init transaction must have status ok", n)
			}
		}
		if t.End != 0 && t.End < t.Start {
			return nil, fmt.Errorf("line %d: end %d before start %d", n, t.End, t.Start)
		}
		for i := range t.Stmts {
			if err := t.Stmts[i].validate(); err != nil {
				return nil, fmt.Errorf("line %d: statement %d: %w", n, i+1, err)
			}
		}
		if !fast {
			for _, s := range opText {
				op, err := ParseOp(s)
				if err != nil {
					return nil, fmt.Errorf("line %d: %w", n, err)
				}
				rd.ops = append(rd.ops, op)
			}
		}
		t.Ops = rd.ops
		return t, nil
	}
	if err := rd.sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d MiB, the longest line a history may have", rd.line+1, MaxLine>>20)
	} else if err != nil {
		return nil, fmt.Errorf("reading history: %w", err)
	}
	return nil, io.EOF
}

// idSet finds transaction ids used twice. While the ids rise (recorders
// number transactions as they start them) each is one int64 in asc, in
// blocks that are never copied to grow, and its line follows from its index
// and the blank and comment lines before it (gaps); the ids that come after
// the first fall go in a map.
type idSet struct {
	asc  [][]int64 // blocks of idBlock ids, the last one filling
	n    int       // ids in asc
	gaps []gap
	rest map[int64]int // id → line
}

const idBlock = 1 << 14

// gap says that the skipped lines before the transaction at index at (in
// asc) number skipped in all.
type gap struct{ at, skipped int }

// skip notes a blank or comment line.
func (s *idSet) skip() {
	if s.rest != nil {
		return // lines are kept in the map from now on
	}
	k := len(s.gaps)
	if k > 0 && s.gaps[k-1].at == s.n {
		s.gaps[k-1].skipped++
		return
	}
	sk := 1
	if k > 0 {
		sk += s.gaps[k-1].skipped
	}
	s.gaps = append(s.gaps, gap{s.n, sk})
}

// lineOf is the line of the id at index i of asc.
func (s *idSet) lineOf(i int) int {
	g, _ := slices.BinarySearchFunc(s.gaps, i+1, func(g gap, x int) int { return cmp.Compare(g.at, x) })
	sk := 0
	if g > 0 {
		sk = s.gaps[g-1].skipped
	}
	return i + 1 + sk
}

// find returns the index of id in asc, if there.
func (s *idSet) find(id int64) (int, bool) {
	b, _ := slices.BinarySearchFunc(s.asc, id, func(blk []int64, x int64) int { return cmp.Compare(blk[len(blk)-1], x) })
	if b == len(s.asc) {
		return 0, false
	}
	i, found := slices.BinarySearch(s.asc[b], id)
	return b*idBlock + i, found
}

// add notes id, on line n; if it was used before, it returns that line.
func (s *idSet) add(id int64, n int) (prev int, dup bool) {
	if s.rest == nil {
		k := len(s.asc)
		if k == 0 || id > s.asc[k-1][len(s.asc[k-1])-1] {
			switch {
			case k == 0:
				s.asc = append(s.asc, nil) // grown by append: a small history stays small
				k++
			case len(s.asc[k-1]) == idBlock:
				s.asc = append(s.asc, make([]int64, 0, idBlock))
				k++
			}
			s.asc[k-1] = append(s.asc[k-1], id)
			s.n++
			return 0, false
		}
	}
	if i, found := s.find(id); found {
		return s.lineOf(i), true
	}
	if s.rest == nil {
		s.rest = make(map[int64]int)
	}
	if p, ok := s.rest[id]; ok {
		return p, true
	}
	s.rest[id] = n
	return 0, false
}

// ReadFile reads a JSON Lines history from a file.
func ReadFile(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// Write writes h as JSON Lines in the format Read accepts.
func Write(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	for i := range h.Txns {
		if err := WriteTxn(bw, &h.Txns[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteTxn writes one transaction as a JSON line; recorders call it as each
// transaction finishes so a crash loses at most the line being written.
func WriteTxn(w io.Writer, t *Txn) error {
	l := line{ID: t.ID, Session: t.Session, Status: t.Status.String(), Start: t.Start, End: t.End, Init: t.Init, Final: t.Final, Ops: make([]string, len(t.Ops)), Isolation: t.Isolation, Stmts: t.Stmts}
	for i, o := range t.Ops {
		l.Ops[i] = o.String()
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

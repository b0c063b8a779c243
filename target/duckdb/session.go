package duckdb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/txlab/txlab/target"
)

// Session is one connection to txlab-duckdb: one DuckDB connection.
type Session struct {
	mu sync.Mutex
	nc net.Conn
	r  *bufio.Reader
	id string
	p  *proc
	// dead is set once the connection is unusable (cut off, closed, a
	// frame refused); every later Exec fails with it.
	dead error
}

// ID implements target.Session.
func (s *Session) ID() string { return s.id }

// SetIsolation implements target.Session: snapshot isolation is all there
// is, and nothing needs saying to DuckDB.
func (s *Session) SetIsolation(ctx context.Context, l target.Level) error {
	return target.CheckLevel(DBMS, l, levels)
}

// Exec implements target.Session. The program bounds what it sends by
// target.CurrentLimits; what arrives is kept as target.KeeperFor(ctx)
// allows, the rest counted in Result.Truncated.
func (s *Session) Exec(ctx context.Context, q string) (*target.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return nil, s.dead
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	// A cut-off statement ends the session: closing its connection makes
	// the program interrupt the statement and roll the transaction back.
	stop := context.AfterFunc(ctx, func() { s.nc.Close() })
	res, err := s.exec(ctx, q)
	if !stop() || ctx.Err() != nil {
		s.kill(&target.Error{Class: target.ClassConnection, RolledBack: true, Message: "the session was cut off: " + context.Cause(ctx).Error()})
		return nil, fmt.Errorf("duckdb: %w", ctx.Err())
	}
	return res, err
}

// kill marks the session dead with err and closes its connection.
func (s *Session) kill(err error) {
	if s.dead == nil {
		s.dead = err
	}
	s.nc.Close()
}

// lost is the error of a connection that failed under a statement.
func (s *Session) lost(err error) error {
	e := s.p.exited()
	if e == nil {
		e = &target.Error{Class: target.ClassConnection, RolledBack: true, Message: "the connection to txlab-duckdb failed: " + err.Error()}
	}
	s.kill(e)
	return e
}

func (s *Session) exec(ctx context.Context, q string) (*target.Result, error) {
	lim := target.CurrentLimits()
	req := Request{Query: target.ReturnsRows(q), MaxRows: uint64(lim.Rows), MaxBytes: uint64(lim.Bytes), SQL: q}
	w := bufio.NewWriterSize(s.nc, len(q)+16)
	if err := WriteFrame(w, req.Kind(), EncodeRequest(req)); err != nil {
		return nil, s.lost(err)
	}
	if err := w.Flush(); err != nil {
		return nil, s.lost(err)
	}
	// No frame may be larger than a row of the bound, or an error text.
	limit := uint64(lim.Bytes) + FrameOverhead + MaxErrorText + 1<<10
	read := func() (byte, []byte, error) {
		k, p, err := ReadFrame(s.r, limit)
		if errors.Is(err, ErrFrameTooLarge) {
			e := &target.Error{Class: target.ClassConnection, RolledBack: true, Oversize: true,
				Message: fmt.Sprintf("txlab-duckdb sent a frame larger than txlab keeps of a result (%s, --max-result-bytes): %v; the session was closed", target.FormatBytes(lim.Bytes), err)}
			s.kill(e)
			return 0, nil, e
		}
		if err != nil {
			return 0, nil, s.lost(err)
		}
		return k, p, nil
	}
	malformed := func(err error) error {
		e := &target.Error{Class: target.ClassConnection, RolledBack: true, Message: "txlab-duckdb: " + err.Error()}
		s.kill(e)
		return e
	}
	k, p, err := read()
	if err != nil {
		return nil, err
	}
	switch {
	case k == FrameError:
		return nil, s.failure(p)
	case k == FrameDone && !req.Query:
		d, err := DecodeDone(p)
		if err != nil {
			return nil, malformed(err)
		}
		n := d.Affected
		if !target.ChangesRows(q) {
			n = -1
		}
		return &target.Result{Affected: n}, nil
	case k != FrameColumns || !req.Query:
		return nil, malformed(fmt.Errorf("unexpected frame %q", k))
	}
	cols, err := DecodeColumns(p)
	if err != nil {
		return nil, malformed(err)
	}
	res := &target.Result{Columns: cols, Rows: []target.Row{}, Affected: -1}
	keep := target.KeeperFor(ctx)
	defer keep.Done()
	for {
		k, p, err := read()
		if err != nil {
			return nil, err
		}
		switch k {
		case FrameRow:
			if keep.Full() {
				keep.Keep(0)
				continue
			}
			vals, err := DecodeRow(p, len(cols))
			if err != nil {
				return nil, malformed(err)
			}
			row := make(target.Row, len(vals))
			for i, v := range vals {
				row[i] = target.Value{S: v.S, Null: v.Null}
			}
			if keep.Keep(target.RowSize(row)) {
				res.Rows = append(res.Rows, row)
			}
		case FrameDone:
			d, err := DecodeDone(p)
			if err != nil {
				return nil, malformed(err)
			}
			res.Truncated = keep.Dropped + int64(d.Dropped)
			return res, nil
		case FrameError:
			return nil, s.failure(p)
		default:
			return nil, malformed(fmt.Errorf("unexpected frame %q", k))
		}
	}
}

// failure decodes an 'X' frame into a classified error.
func (s *Session) failure(p []byte) error {
	f, err := DecodeFailure(p)
	if err != nil {
		e := &target.Error{Class: target.ClassConnection, RolledBack: true, Message: "txlab-duckdb: " + err.Error()}
		s.kill(e)
		return e
	}
	return classify(f)
}

// Close implements target.Session: an open transaction is rolled back
// before the connection closes, so the next session never meets it.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead == nil {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		stop := context.AfterFunc(ctx, func() { s.nc.Close() })
		s.exec(ctx, "ROLLBACK")
		stop()
		cancel()
	}
	s.kill(errClosed)
	return nil
}

// close is Close for the target's own session.
func (s *Session) close() { s.Close() }

// closeTimeout bounds the ROLLBACK a closing session sends.
const closeTimeout = 10 * time.Second

var errClosed = &target.Error{Class: target.ClassConnection, RolledBack: true, Message: "the session is closed"}

// DropTemporary implements target.TempTables: names are qualified with
// DuckDB's temp catalog, so a table of the database is never reached.
func (s *Session) DropTemporary(ctx context.Context, names []string) error {
	for _, n := range names {
		if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS temp.main."+quoteIdent(n)); err != nil {
			return err
		}
	}
	return nil
}

// classify maps DuckDB's error type and message to a class. aborted is
// the program's finding that the transaction now takes only ROLLBACK (or
// has ended: a failed COMMIT).
func classify(f Failure) error {
	e := &target.Error{Code: code(f.Type), Message: shorten(f.Message), RolledBack: f.Aborted}
	m := strings.ToLower(f.Message)
	switch f.Type {
	case "TransactionContext":
		switch {
		case strings.Contains(m, "conflict"):
			// "Conflict on update!", "Conflict on tuple deletion!": the
			// write conflicts with a concurrent transaction's.
			e.Class = target.ClassSerialization
		case strings.Contains(m, "current transaction is aborted"):
			e.Class = target.ClassAborted
		case strings.Contains(m, "failed to commit") && (strings.Contains(m, "duplicate key") || strings.Contains(m, "unique constraint")):
			e.Class = target.ClassDuplicateKey
		case strings.Contains(m, "failed to commit"):
			e.Class = target.ClassSerialization
		default:
			// BEGIN in a transaction, COMMIT outside one.
			e.Class = target.ClassOther
		}
	case "Constraint":
		if strings.Contains(m, "duplicate key") || strings.Contains(m, "unique constraint") {
			e.Class = target.ClassDuplicateKey
		} else {
			e.Class = target.ClassConstraint
		}
	case "Catalog":
		switch {
		case strings.Contains(m, "does not exist"):
			e.Class = target.ClassNoSuchTable
			if !strings.Contains(m, "table with name") && !strings.Contains(m, "view with name") {
				e.Class = target.ClassSyntax
			}
		case strings.Contains(m, "already exists"):
			e.Class = target.ClassExists
		default:
			e.Class = target.ClassSyntax
		}
	case "Parser", "Syntax", "Binder", "Not implemented", "Parameter Not Resolved", "Parameter Not Allowed", "Dependency":
		e.Class = target.ClassSyntax
	case "Conversion", "Out of Range", "Invalid Input", "Mismatch Type", "Divide by Zero", "Invalid type", "Decimal":
		e.Class = target.ClassData
	case "Permission":
		e.Class = target.ClassPrivilege
	default:
		e.Class = target.ClassOther
	}
	return e
}

// code is an error type as one word: "Out of Range" is OutOfRange.
func code(typ string) string {
	var b strings.Builder
	for _, w := range strings.Fields(typ) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// maxErrorText is the most of an error text txlab keeps.
const maxErrorText = 4 << 10

// shorten cuts an error text longer than maxErrorText.
func shorten(msg string) string {
	if len(msg) <= maxErrorText {
		return msg
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

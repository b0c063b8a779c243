package main

// The wire protocol between txlab (package target/duckdb) and
// txlab-duckdb. This file is the one source of it: target/duckdb holds a
// copy made by go generate (its package line changed), so both ends
// encode and decode with the same code.
//
// One Unix-socket connection is one session. Every message is a frame: a
// 4-byte big-endian length N, then N bytes whose first byte is the frame's
// kind. Numbers are unsigned varints (encoding/binary), strings a varint
// length and the bytes, a value a varint 0 for NULL or its length + 1 and
// the bytes.
//
//	txlab → program, one statement at a time:
//	  'Q' maxRows maxBytes SQL   run a statement that returns rows
//	  'E' maxRows maxBytes SQL   run a statement that returns none
//	    (SQL is the rest of the frame)
//	program → txlab, the answer, before the next request is read:
//	  'C' n name×n               the result's columns (Q only)
//	  'W' value×n                one row (Q only; past the bounds none)
//	  'D' affected+1 dropped     done: rows affected (0: unknown), rows
//	                             not sent because of maxRows/maxBytes
//	  'X' type message aborted   the statement failed: DuckDB's error type
//	                             ("Constraint", "TransactionContext", …),
//	                             its message (at most MaxErrorText bytes),
//	                             1 when only ROLLBACK is accepted now
//
// A 'Q' is answered C W* D or C W* X (an error while fetching) or X; an
// 'E' with D or X. The program sends a row only while it has sent fewer
// than maxRows rows and the rows sent, with the one to send, fit in
// maxBytes (RowBytes); once it drops one, it drops every later one, so
// what arrives is always the result's first rows.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Frame kinds.
const (
	FrameQuery   = 'Q'
	FrameExec    = 'E'
	FrameColumns = 'C'
	FrameRow     = 'W'
	FrameDone    = 'D'
	FrameError   = 'X'
)

// ProtocolVersion is the second word of the program's ready line
// ("txlab-duckdb 1 v1.5.6"): txlab refuses a program of another one.
const ProtocolVersion = 1

// ReadyWord is the ready line's first word.
const ReadyWord = "txlab-duckdb"

// MaxErrorText is the most of an error message the program sends.
const MaxErrorText = 4 << 10

// FrameOverhead is what a frame holds beyond its values' bytes: the kind
// byte and the varint lengths, at most 10 bytes per value plus a few.
const FrameOverhead = 16

// RowBytes is what the program counts of a row against maxBytes: its
// values' bytes and 24 bytes per value and per row, as txlab counts a
// row it keeps at least (target.RowSize), so that every row txlab would
// keep is sent.
func RowBytes(vals []Value) int64 {
	n := int64(24)
	for _, v := range vals {
		n += 24 + int64(len(v.S))
	}
	return n
}

// Value is one column value as text.
type Value struct {
	S    string
	Null bool
}

// Request is a 'Q' or 'E' frame.
type Request struct {
	Query    bool // 'Q': the statement returns rows
	MaxRows  uint64
	MaxBytes uint64
	SQL      string
}

// Done is a 'D' frame.
type Done struct {
	Affected int64 // -1: unknown
	Dropped  uint64
}

// Failure is an 'X' frame.
type Failure struct {
	Type    string
	Message string
	Aborted bool
}

func (f *Failure) Error() string { return f.Message }

// ErrFrameTooLarge is returned by ReadFrame for a frame longer than its
// limit; the frame is not read.
var ErrFrameTooLarge = errors.New("frame larger than the limit")

// WriteFrame writes one frame of kind k with payload p.
func WriteFrame(w io.Writer, k byte, p []byte) error {
	var h [5]byte
	binary.BigEndian.PutUint32(h[:4], uint32(len(p)+1))
	h[4] = k
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(p)
	return err
}

// ReadFrame reads one frame, refusing (unread) one longer than limit
// bytes; it returns the kind and the payload.
func ReadFrame(r io.Reader, limit uint64) (byte, []byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(binary.BigEndian.Uint32(h[:]))
	if n == 0 {
		return 0, nil, errors.New("empty frame")
	}
	if n > limit {
		return 0, nil, fmt.Errorf("%w (%d bytes, limit %d)", ErrFrameTooLarge, n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return b[0], b[1:], nil
}

// Encoder appends a frame's fields.
type Encoder struct{ B []byte }

// Uint appends a varint.
func (e *Encoder) Uint(n uint64) { e.B = binary.AppendUvarint(e.B, n) }

// Str appends a string.
func (e *Encoder) Str(s string) {
	e.Uint(uint64(len(s)))
	e.B = append(e.B, s...)
}

// Value appends a value.
func (e *Encoder) Value(v Value) {
	if v.Null {
		e.Uint(0)
		return
	}
	e.Uint(uint64(len(v.S)) + 1)
	e.B = append(e.B, v.S...)
}

// Decoder reads a frame's fields; the first error sticks.
type Decoder struct {
	B   []byte
	Err error
}

func (d *Decoder) fail(what string) {
	if d.Err == nil {
		d.Err = fmt.Errorf("malformed frame: %s", what)
	}
}

// Uint reads a varint.
func (d *Decoder) Uint() uint64 {
	if d.Err != nil {
		return 0
	}
	n, k := binary.Uvarint(d.B)
	if k <= 0 || k != len(binary.AppendUvarint(nil, n)) {
		d.fail("bad number") // overlong ones too: one reading only
		return 0
	}
	d.B = d.B[k:]
	return n
}

// bytes reads n bytes.
func (d *Decoder) bytes(n uint64) string {
	if d.Err != nil {
		return ""
	}
	if n > uint64(len(d.B)) {
		d.fail("length past the end")
		return ""
	}
	s := string(d.B[:n])
	d.B = d.B[n:]
	return s
}

// Str reads a string.
func (d *Decoder) Str() string { return d.bytes(d.Uint()) }

// Value reads a value.
func (d *Decoder) Value() Value {
	n := d.Uint()
	if d.Err != nil || n == 0 {
		return Value{Null: d.Err == nil}
	}
	return Value{S: d.bytes(n - 1)}
}

// End fails unless the frame was read to its end.
func (d *Decoder) End() error {
	if d.Err == nil && len(d.B) > 0 {
		d.fail("bytes after the last field")
	}
	return d.Err
}

// EncodeRequest is the payload of a request frame (its kind: Kind).
func EncodeRequest(r Request) []byte {
	e := &Encoder{}
	e.Uint(r.MaxRows)
	e.Uint(r.MaxBytes)
	e.B = append(e.B, r.SQL...)
	return e.B
}

// Kind is the request's frame kind.
func (r Request) Kind() byte {
	if r.Query {
		return FrameQuery
	}
	return FrameExec
}

// DecodeRequest reads a request frame.
func DecodeRequest(k byte, p []byte) (Request, error) {
	if k != FrameQuery && k != FrameExec {
		return Request{}, fmt.Errorf("malformed frame: kind %q is no request", k)
	}
	d := &Decoder{B: p}
	r := Request{Query: k == FrameQuery, MaxRows: d.Uint(), MaxBytes: d.Uint()}
	if d.Err != nil {
		return Request{}, d.Err
	}
	r.SQL = string(d.B)
	return r, nil
}

// EncodeColumns is a 'C' payload.
func EncodeColumns(cols []string) []byte {
	e := &Encoder{}
	e.Uint(uint64(len(cols)))
	for _, c := range cols {
		e.Str(c)
	}
	return e.B
}

// DecodeColumns reads a 'C' payload.
func DecodeColumns(p []byte) ([]string, error) {
	d := &Decoder{B: p}
	n := d.Uint()
	if n > uint64(len(p)) { // every name takes a byte at least
		d.fail("more columns than bytes")
	}
	cols := make([]string, 0, min(n, uint64(len(p))))
	for i := uint64(0); i < n && d.Err == nil; i++ {
		cols = append(cols, d.Str())
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return cols, nil
}

// EncodeRow is a 'W' payload.
func EncodeRow(vals []Value) []byte {
	e := &Encoder{}
	for _, v := range vals {
		e.Value(v)
	}
	return e.B
}

// DecodeRow reads a 'W' payload of n values.
func DecodeRow(p []byte, n int) ([]Value, error) {
	d := &Decoder{B: p}
	if n > len(p) {
		d.fail("more values than bytes")
		return nil, d.Err
	}
	vals := make([]Value, n)
	for i := range vals {
		vals[i] = d.Value()
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return vals, nil
}

// EncodeDone is a 'D' payload.
func EncodeDone(x Done) []byte {
	e := &Encoder{}
	e.Uint(uint64(x.Affected + 1))
	e.Uint(x.Dropped)
	return e.B
}

// DecodeDone reads a 'D' payload.
func DecodeDone(p []byte) (Done, error) {
	d := &Decoder{B: p}
	x := Done{Affected: int64(d.Uint()) - 1, Dropped: d.Uint()}
	if x.Affected < -1 {
		d.fail("affected rows out of range")
	}
	if err := d.End(); err != nil {
		return Done{}, err
	}
	return x, nil
}

// EncodeFailure is an 'X' payload; the message is cut to MaxErrorText.
func EncodeFailure(f Failure) []byte {
	e := &Encoder{}
	e.Str(f.Type)
	msg := f.Message
	if len(msg) > MaxErrorText {
		msg = msg[:MaxErrorText]
	}
	e.Str(msg)
	if f.Aborted {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
	return e.B
}

// DecodeFailure reads an 'X' payload.
func DecodeFailure(p []byte) (Failure, error) {
	d := &Decoder{B: p}
	f := Failure{Type: d.Str(), Message: d.Str()}
	switch {
	case d.Err != nil:
	case len(d.B) != 1 || d.B[0] > 1:
		d.fail("bad aborted flag")
	default:
		f.Aborted = d.B[0] == 1
		d.B = nil
	}
	if err := d.End(); err != nil {
		return Failure{}, err
	}
	return f, nil
}

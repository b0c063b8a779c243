package duckdb

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// TestWireRoundTrip: every frame decodes to what was encoded.
func TestWireRoundTrip(t *testing.T) {
	var b bytes.Buffer
	req := Request{Query: true, MaxRows: 100000, MaxBytes: 64 << 20, SQL: "SELECT 'a;b', NULL"}
	row := []Value{{S: "x\x00y"}, {Null: true}, {S: ""}}
	fail := Failure{Type: "Out of Range", Message: "Out of Range Error: overflow", Aborted: true}
	for _, f := range []struct {
		k byte
		p []byte
	}{
		{req.Kind(), EncodeRequest(req)},
		{FrameColumns, EncodeColumns([]string{"id", "", "naïve"})},
		{FrameRow, EncodeRow(row)},
		{FrameDone, EncodeDone(Done{Affected: -1, Dropped: 7})},
		{FrameError, EncodeFailure(fail)},
	} {
		if err := WriteFrame(&b, f.k, f.p); err != nil {
			t.Fatal(err)
		}
	}
	next := func() (byte, []byte) {
		k, p, err := ReadFrame(&b, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return k, p
	}
	k, p := next()
	if got, err := DecodeRequest(k, p); err != nil || got != req {
		t.Errorf("request %+v, %v", got, err)
	}
	if _, p := next(); true {
		if got, err := DecodeColumns(p); err != nil || !reflect.DeepEqual(got, []string{"id", "", "naïve"}) {
			t.Errorf("columns %q, %v", got, err)
		}
	}
	if _, p := next(); true {
		if got, err := DecodeRow(p, 3); err != nil || !reflect.DeepEqual(got, row) {
			t.Errorf("row %v, %v", got, err)
		}
	}
	if _, p := next(); true {
		if got, err := DecodeDone(p); err != nil || got != (Done{Affected: -1, Dropped: 7}) {
			t.Errorf("done %+v, %v", got, err)
		}
	}
	if _, p := next(); true {
		if got, err := DecodeFailure(p); err != nil || got != fail {
			t.Errorf("failure %+v, %v", got, err)
		}
	}
	// A frame past the limit is refused unread.
	WriteFrame(&b, FrameRow, make([]byte, 100))
	if _, _, err := ReadFrame(&b, 50); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("oversize frame: %v", err)
	}
	// A long error text is cut.
	long := Failure{Message: string(bytes.Repeat([]byte("e"), 3*MaxErrorText))}
	if got, _ := DecodeFailure(EncodeFailure(long)); len(got.Message) != MaxErrorText {
		t.Errorf("error text of %d bytes sent", len(got.Message))
	}
}

// FuzzWire: the decoders of what txlab-duckdb sends take any bytes
// without panicking or reading past them, and what decodes re-encodes
// to the same bytes.
func FuzzWire(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 'W', 0}, 1)
	f.Add(append([]byte{0, 0, 0, 5}, append([]byte{'C'}, EncodeColumns([]string{"a", "b"})...)...), 2)
	f.Add(append([]byte{0, 0, 0, 12, 'X'}, EncodeFailure(Failure{Type: "Parser", Message: "x"})...), 0)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 'W'}, 3)
	f.Add([]byte{0, 0, 0, 3, 'D', 0x80, 0x80}, 0)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		k, p, err := ReadFrame(bytes.NewReader(b), 1<<16)
		if err != nil {
			return
		}
		n = n & 0xff
		switch k {
		case FrameColumns:
			if cols, err := DecodeColumns(p); err == nil && !bytes.Equal(EncodeColumns(cols), p) {
				t.Errorf("columns %q re-encode differently", cols)
			}
		case FrameRow:
			if vals, err := DecodeRow(p, n); err == nil && !bytes.Equal(EncodeRow(vals), p) {
				t.Errorf("row %v re-encodes differently", vals)
			}
		case FrameDone:
			if d, err := DecodeDone(p); err == nil && !bytes.Equal(EncodeDone(d), p) {
				t.Errorf("done %+v re-encodes differently", d)
			}
		case FrameError:
			if x, err := DecodeFailure(p); err == nil && len(x.Message) <= MaxErrorText && !bytes.Equal(EncodeFailure(x), p) {
				t.Errorf("failure %+v re-encodes differently", x)
			}
		case FrameQuery, FrameExec:
			if r, err := DecodeRequest(k, p); err == nil && !bytes.Equal(EncodeRequest(r), p) {
				t.Errorf("request %+v re-encodes differently", r)
			}
		}
	})
}

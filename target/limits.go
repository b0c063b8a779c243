package target

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// Limits bound what txlab keeps of one result, so that a statement
// returning millions of rows or rows of a megabyte each cannot take the
// process's memory with it: past either bound the rest of the result is
// read (the statement runs to its end, as it would for a client) and
// counted, not kept, and the Result says how many rows it dropped.
//
// A bound applies to one statement's result, to one case's results taken
// together (the executor drops the rows of later statements once the case
// has kept Bytes) and to the final state (Owned.Dump), across its tables.
type Limits struct {
	// Rows is the most rows kept.
	Rows int64
	// Bytes is the most bytes kept, counted as RowSize counts them (the
	// values' text as JSON prints it and what Go needs to hold it).
	Bytes int64
}

// DefaultLimits keep 100,000 rows and 64 MiB: far past what a case that
// judges isolation needs (its tables hold a few rows), and little enough
// that a campaign's workers and oracles together stay well under a
// gigabyte.
var DefaultLimits = Limits{Rows: 100_000, Bytes: 64 << 20}

// limits are the process's bounds. They are process-wide, not a target's,
// because what they protect is the process's memory; the command line sets
// them once, before any target opens.
var limits atomic.Pointer[Limits]

// SetLimits sets the bounds every later read keeps to; a zero or negative
// field takes DefaultLimits' value.
func SetLimits(l Limits) {
	if l.Rows <= 0 {
		l.Rows = DefaultLimits.Rows
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultLimits.Bytes
	}
	limits.Store(&l)
}

// CurrentLimits returns the bounds set by SetLimits, or DefaultLimits.
func CurrentLimits() Limits {
	if l := limits.Load(); l != nil {
		return *l
	}
	return DefaultLimits
}

// Per-value and per-row memory beyond the text: a Value is a string
// header and a bool (24 bytes on 64-bit), a Row a slice header.
const (
	valueOverhead = 24
	rowOverhead   = 24
)

// RowSize is what a row costs to keep, for Limits.Bytes: its values' text
// as --json prints it plus what Go needs to hold them, so that many tiny
// values count too.
func RowSize(r Row) int64 {
	n := int64(rowOverhead)
	for _, v := range r {
		n += valueOverhead + escapedSize(v.S)
	}
	return n
}

// escapedSize is at least the length of s as encoding/json writes it: a
// control character, one of < > &, and a byte that is not UTF-8 become
// \u00XX or \ufffd (six bytes), U+2028 and U+2029 six for their three, a
// quote or a backslash two. Counting s as stored let 64 MiB of control
// characters, within the bound, print as 384 MiB of JSON and take 1.5 GB
// to encode.
func escapedSize(s string) int64 {
	n := int64(len(s))
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b < 0x20, b == '<', b == '>', b == '&':
				n += 5
			case b == '"', b == '\\':
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028', r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}

// Budget is what one case may still keep of its results together
// (Limits.Bytes per case): the executor puts one in the context of the
// case's statements (WithBudget), and a reader that is given that context
// keeps no more than is left, so a case's later large results cost no
// memory once its earlier ones have spent it. Statements of concurrent
// sessions draw on it together, so they may overdraw it by what they
// read at the same time; the executor trims what they kept to the exact
// bound.
type Budget struct{ left atomic.Int64 }

// NewBudget is a budget of bytes.
func NewBudget(bytes int64) *Budget {
	b := &Budget{}
	b.left.Store(bytes)
	return b
}

type budgetKey struct{}

// WithBudget returns ctx with b for the readers of the statements run
// under it.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// KeeperFor starts a result read under ctx: CurrentLimits, and no more
// bytes than ctx's Budget has left. Call Done when the result is read.
func KeeperFor(ctx context.Context) *Keeper {
	k := NewKeeper(CurrentLimits())
	if b, ok := ctx.Value(budgetKey{}).(*Budget); ok && b != nil {
		k.budget = b
		k.lim.Bytes = max(0, min(k.lim.Bytes, b.left.Load()))
	}
	return k
}

// Done spends what the result kept from the budget it was read under.
func (k *Keeper) Done() {
	if k.budget != nil {
		k.budget.left.Add(-k.bytes)
		k.budget = nil
	}
}

// Keeper decides, row by row, what of one result is kept under Limits:
// the rows kept are always the result's first ones, and once one row is
// dropped every later one is too (a result is either whole or a prefix
// of itself).
type Keeper struct {
	lim    Limits
	budget *Budget // nil: none
	rows   int64
	bytes  int64
	// Dropped counts the rows not kept.
	Dropped int64
}

// NewKeeper starts a result under lim.
func NewKeeper(lim Limits) *Keeper { return &Keeper{lim: lim} }

// Keep reports whether a row of size bytes (RowSize) is kept, counting it
// either way.
func (k *Keeper) Keep(size int64) bool {
	if k.Dropped > 0 || k.rows >= k.lim.Rows || k.bytes+size > k.lim.Bytes {
		k.Dropped++
		return false
	}
	k.rows++
	k.bytes += size
	return true
}

// Full reports whether the next row is dropped whatever its size, so a
// reader can count it without decoding it.
func (k *Keeper) Full() bool { return k.Dropped > 0 || k.rows >= k.lim.Rows }

// Kept returns the rows and bytes kept so far.
func (k *Keeper) Kept() (rows, bytes int64) { return k.rows, k.bytes }

// TruncatedError says a result, or the final state, was larger than
// Limits allow, so an oracle that needs all of it cannot judge the case:
// the case is not judged (never judged a bug on part of a result).
type TruncatedError struct {
	// What was cut: "the final state", "table t", "a result".
	What string
	// Kept and Dropped count rows.
	Kept, Dropped int64
	Limits        Limits
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("%s has more than txlab keeps (%d rows or %s, --max-rows / --max-result-bytes): kept %d rows, dropped %d",
		e.What, e.Limits.Rows, FormatBytes(e.Limits.Bytes), e.Kept, e.Dropped)
}

// IsTruncated reports whether err is, or wraps, a *TruncatedError.
func IsTruncated(err error) bool {
	var te *TruncatedError
	return errors.As(err, &te)
}

// Whole returns nil when r holds its whole result, else a *TruncatedError:
// for readers that need every row (a table of the final state, a catalog
// query) and must not go on with part of it.
func (r *Result) Whole() error {
	if r == nil || r.Truncated == 0 {
		return nil
	}
	return &TruncatedError{What: "a result", Kept: int64(len(r.Rows)), Dropped: r.Truncated, Limits: CurrentLimits()}
}

// FormatBytes writes n in the largest binary unit it is a whole number
// of (64MiB, 1536KiB, 100B); --max-result-bytes accepts it.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseBytes reads a size FormatBytes writes, or any number of bytes with
// an optional unit: B, KB/KiB, MB/MiB, GB/GiB, all powers of 1024; case
// and a space between do not matter. It must be positive.
func ParseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	mult := int64(1)
	switch strings.TrimSuffix(strings.TrimSuffix(t[len(num):], "B"), "I") {
	case "":
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("%q: want bytes, e.g. 64MiB, 512KiB or 1048576", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q: want a positive size, e.g. 64MiB, 512KiB or 1048576", s)
	}
	return n * mult, nil
}

// ByteSize is a command-line flag's value of bytes (ParseBytes), printed
// back the way FormatBytes writes it.
type ByteSize int64

func (b *ByteSize) String() string { return FormatBytes(int64(*b)) }

// Type is the value's name in a flag's help.
func (b *ByteSize) Type() string { return "bytes" }

// Set reads s (ParseBytes).
func (b *ByteSize) Set(s string) error {
	n, err := ParseBytes(s)
	if err != nil {
		return err
	}
	*b = ByteSize(n)
	return nil
}

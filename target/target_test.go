package target

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSortRowsTyped(t *testing.T) {
	rows := []Row{{Str("10")}, {Str("b")}, {NullValue}, {Str("2")}, {Str("-1.5")}, {Str("1.0")}, {Str("1")}, {Str("a")}}
	SortRows(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r[0].String())
	}
	want := "NULL -1.5 1 1.0 2 10 a b"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("sorted %s, want %s", g, want)
	}
}

// TestParseLevels: a list of levels, all (the target's), none; a level the
// DBMS lacks is refused rather than skipped.
func TestParseLevels(t *testing.T) {
	supported := []Level{ReadCommitted, Serializable}
	for s, want := range map[string][]Level{"": nil, "all": supported, "ALL": supported, "rc,SER": {ReadCommitted, Serializable}} {
		got, err := ParseLevels(s, "x", supported)
		if err != nil || strings.Join(levelNames(got), ",") != strings.Join(levelNames(want), ",") {
			t.Errorf("ParseLevels(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseLevels("rc,rr", "x", supported); err == nil || !strings.Contains(err.Error(), "x does not support isolation level repeatable-read") {
		t.Errorf("a level the DBMS lacks: %v", err)
	}
	if _, err := ParseLevels("rc,bogus", "x", supported); err == nil {
		t.Error("an unknown level was accepted")
	}
}

func levelNames(ls []Level) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l)
	}
	return out
}

// TestParseBytes: what FormatBytes writes reads back; units are binary,
// case and a space do not matter; zero, negatives and overflows are refused.
func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"64MiB": 64 << 20, "512 kb": 512 << 10, "1048576": 1 << 20, "1g": 1 << 30, "100B": 100} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, n := range []int64{1, 1536 << 10, 3 << 30} {
		if got, err := ParseBytes(FormatBytes(n)); err != nil || got != n {
			t.Errorf("ParseBytes(FormatBytes(%d)) = %d, %v", n, got, err)
		}
	}
	for _, s := range []string{"0", "-1MiB", "12TB", "x", "99999999999999G"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

// TestParseLevelNames: several targets' --isolation is read without a
// target; all and "" leave each target its own levels.
func TestParseLevelNames(t *testing.T) {
	for s, want := range map[string][]Level{"": nil, "all": nil, "rc,SER": {ReadCommitted, Serializable}, "rr": {RepeatableRead}} {
		got, err := ParseLevelNames(s)
		if err != nil || strings.Join(levelNames(got), ",") != strings.Join(levelNames(want), ",") {
			t.Errorf("ParseLevelNames(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseLevelNames("rc,bogus"); err == nil {
		t.Error("an unknown level was accepted")
	}
}

// TestByteSize: the flag value reads what ParseBytes reads and prints
// what FormatBytes writes; a bad value leaves it as it was.
func TestByteSize(t *testing.T) {
	b := ByteSize(DefaultLimits.Bytes)
	if err := b.Set("256MiB"); err != nil || int64(b) != 256<<20 || b.String() != FormatBytes(256<<20) {
		t.Errorf("Set(256MiB): %d %q %v", b, b.String(), err)
	}
	if err := b.Set("lots"); err == nil || int64(b) != 256<<20 {
		t.Errorf("Set(lots): %d %v, want an error and 256MiB kept", b, err)
	}
}

// TestRowSizeCountsEscapes: a value costs what --json prints of it, so
// that the bound on what txlab keeps bounds what encoding it takes (a
// result of control characters printed six times its size); its JSON
// never outgrows the count.
func TestRowSizeCountsEscapes(t *testing.T) {
	for _, s := range []string{"plain", "", strings.Repeat("\x01", 100), `"quoted\"`, "<a&b>", "\xff\xfe", "Grüße 世界", "\u2028"} {
		js, err := json.Marshal(Str(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := RowSize(Row{Str(s)}) - rowOverhead - valueOverhead; got < int64(len(js))-2 {
			t.Errorf("%q: counted %d, JSON prints %d bytes", s, got, len(js)-2)
		}
	}
	if got := RowSize(Row{Str(strings.Repeat("\x01", 100))}) - rowOverhead - valueOverhead; got != 600 {
		t.Errorf("100 control characters: counted %d, want 600", got)
	}
}

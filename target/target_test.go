package target

import (
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

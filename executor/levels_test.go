package executor

import (
	"maps"
	"testing"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

func TestLevelPolicy(t *testing.T) {
	c := &testcase.Case{Isolation: target.ReadCommitted, ConnIsolation: map[int]target.Level{2: target.Serializable}}
	bare := &testcase.Case{}
	tests := []struct {
		c              *testcase.Case
		conn           int
		override       target.Level
		conn0, caseLvl target.Level
	}{
		{c, 1, "", target.ReadCommitted, target.ReadCommitted},
		{c, 2, "", target.Serializable, target.ReadCommitted},
		{c, 2, target.RepeatableRead, target.RepeatableRead, target.RepeatableRead},
		{bare, 1, "", "", ""},
		{bare, 1, target.ReadUncommitted, target.ReadUncommitted, target.ReadUncommitted},
	}
	for _, tt := range tests {
		opt := Options{Isolation: tt.override}
		if got := ConnLevel(tt.c, tt.conn, opt); got != tt.conn0 {
			t.Errorf("ConnLevel(%+v, %d, %q) = %q, want %q", tt.c, tt.conn, tt.override, got, tt.conn0)
		}
		if got := CaseLevel(tt.c, opt); got != tt.caseLvl {
			t.Errorf("CaseLevel(%+v, %q) = %q, want %q", tt.c, tt.override, got, tt.caseLvl)
		}
	}
	if got := Concrete("", target.Serializable); got != target.Serializable {
		t.Errorf(`Concrete("", SER) = %q`, got)
	}
	if got := Concrete(target.ReadCommitted, target.Serializable); got != target.ReadCommitted {
		t.Errorf(`Concrete(RC, SER) = %q`, got)
	}
	// A result built without concrete levels (a test's, an old one) gets
	// them from Levels and Default; the executor's are read as they are.
	r := &Result{Levels: map[int]target.Level{1: "", 2: target.ReadCommitted}, Default: target.Serializable}
	want := map[int]target.Level{1: target.Serializable, 2: target.ReadCommitted}
	if got := r.ConnLevels(); !maps.Equal(got, want) {
		t.Errorf("ConnLevels = %v, want %v", got, want)
	}
	// Mixed levels: the weakest is the run's level.
	if !r.Mixed() || r.Level() != target.ReadCommitted {
		t.Errorf("mixed run: Mixed = %v, Level = %q, want true, %q", r.Mixed(), r.Level(), target.ReadCommitted)
	}
	r.Concrete = map[int]target.Level{1: target.RepeatableRead, 2: target.RepeatableRead}
	if got := r.ConnLevels(); !maps.Equal(got, r.Concrete) {
		t.Errorf("ConnLevels = %v, want the executor's %v", got, r.Concrete)
	}
	if r.Mixed() || r.Level() != target.RepeatableRead {
		t.Errorf("one level: Mixed = %v, Level = %q, want false, %q", r.Mixed(), r.Level(), target.RepeatableRead)
	}
	// No connections: the default.
	if empty := (&Result{Default: target.Serializable}); empty.Mixed() || empty.Level() != target.Serializable {
		t.Errorf("no connections: Mixed = %v, Level = %q, want false, %q", empty.Mixed(), empty.Level(), target.Serializable)
	}
}

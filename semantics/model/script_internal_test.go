package model

import (
	"fmt"
	"testing"
)

// TestNextScript: the scripts of a case's replays visit every combination
// of the choice points they meet once, depth first; a choice point met
// only under some earlier choice is visited under that choice alone.
func TestNextScript(t *testing.T) {
	// Two choice points, of 2 and 3 alternatives; a third, of 2, is met
	// only when the first takes its second alternative.
	points := func(script []int) []int {
		at := func(i int) int {
			if i < len(script) {
				return script[i]
			}
			return 0
		}
		p := []int{2, 3}
		if at(0) == 1 {
			p = append(p, 2)
		}
		return p
	}
	var seen []string
	var script []int
	for range 100 {
		e := &Engine{script: script}
		for _, n := range points(script) {
			e.choose(n)
		}
		full := make([]int, len(e.points))
		copy(full, script)
		seen = append(seen, fmt.Sprint(full))
		next, more := nextScript(script, e.points)
		if !more {
			break
		}
		script = next
	}
	want := "[[0 0] [0 1] [0 2] [1 0 0] [1 0 1] [1 1 0] [1 1 1] [1 2 0] [1 2 1]]"
	if got := fmt.Sprint(seen); got != want {
		t.Errorf("replays %s, want %s", got, want)
	}
}

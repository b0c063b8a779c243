package main

import (
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/target"
)

// TestBugProgressHeartbeat: while one run takes long, plain progress
// repeats which bug and level it is on; after done nothing more is said.
func TestBugProgressHeartbeat(t *testing.T) {
	defer func(d time.Duration) { bugProgressEvery = d }(bugProgressEvery)
	bugProgressEvery = 30 * time.Millisecond
	var out syncBuffer
	p := newBugProgress(&out, false, 1)
	p.start(0, "mariadb")
	p.run(bugs.Progress{N: 3, Of: 9, Entry: bugs.Entry{Bug: "MDEV-1"}, Level: target.ReadCommitted})
	time.Sleep(300 * time.Millisecond) // one slow run
	p.done(&bugTarget{})
	time.Sleep(100 * time.Millisecond)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	beats := 0
	for _, l := range lines {
		if strings.Contains(l, "3/9 MDEV-1 at RC") {
			beats++
		}
	}
	if beats < 3 {
		t.Errorf("%d lines name the slow run, want several:\n%s", beats, out.String())
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "reproduce") {
		t.Errorf("a line after done: %q", last)
	}
}

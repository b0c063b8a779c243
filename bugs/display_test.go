package bugs

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txlab/txlab/target"
)

// TestDisplayHeartbeat: while one run takes long, plain progress
// repeats which bug and level it is on; after done nothing more is said.
func TestDisplayHeartbeat(t *testing.T) {
	defer func(d time.Duration) { displayEvery = d }(displayEvery)
	displayEvery = 30 * time.Millisecond
	var out syncBuffer
	p := NewDisplay(&out, false, 1)
	p.Start(0, "mariadb")
	p.Run(Progress{N: 3, Of: 9, Entry: Entry{Bug: "MDEV-1"}, Level: target.ReadCommitted})
	time.Sleep(300 * time.Millisecond) // one slow run
	p.Done(&TargetRun{})
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

// syncBuffer is a buffer the heartbeat and the test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

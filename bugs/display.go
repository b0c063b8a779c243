package bugs

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/txlab/txlab/internal/english"
)

// Display says which target and bug a run of the corpus is on (txlab bugs
// test's stderr): redrawn in place as one line, else a line when a target
// starts, opens and ends, and one every displayEvery in between.
type Display struct {
	w      io.Writer
	redraw bool
	of     int // targets
	i      int // the target's index
	spec   string
	began  time.Time
	last   time.Time // of the last plain line
	runs   int
	// mu guards the fields above and the output: the heartbeat writes too.
	mu      sync.Mutex
	current string        // the run under way, as the last line said it
	stop    chan struct{} // ends the target's heartbeat
}

// displayEvery is the interval between plain progress lines (a variable
// for the tests).
var displayEvery = 10 * time.Second

// NewDisplay writes to w, for a run on targets targets, redrawing its
// line in place when redraw (w is a terminal and nothing else writes
// lines there).
func NewDisplay(w io.Writer, redraw bool, targets int) *Display {
	return &Display{w: w, of: targets, redraw: redraw}
}

// heartbeat repeats the current line every displayEvery while a run takes
// long (a case waiting out its hang bound, a server starting), so that a
// plain log never falls silent.
func (d *Display) heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(min(time.Second, displayEvery/3))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			d.mu.Lock()
			select {
			case <-stop: // Done came first: its line is the last
				d.mu.Unlock()
				return
			default:
			}
			if !d.redraw && time.Since(d.last) >= displayEvery {
				msg := d.current
				if msg == "" {
					msg = "opening"
				}
				d.say(fmt.Sprintf("%s (%.0f s)", msg, time.Since(d.began).Seconds()), false)
			}
			d.mu.Unlock()
		}
	}
}

// say writes msg; keep ends a redrawn line, so that the next one does not
// overwrite it.
func (d *Display) say(msg string, keep bool) {
	prefix := "txlab bugs test: " + d.spec
	if d.of > 1 {
		prefix = fmt.Sprintf("txlab bugs test [%d/%d] %s", d.i+1, d.of, d.spec)
	}
	switch {
	case d.redraw && keep:
		fmt.Fprintf(d.w, "\r\033[K%s: %s\n", prefix, msg)
	case d.redraw:
		fmt.Fprintf(d.w, "\r\033[K%s: %s", prefix, msg)
	default:
		fmt.Fprintf(d.w, "%s: %s\n", prefix, msg)
		d.last = time.Now()
	}
}

// Start: target i (spec, as shown) is being opened.
func (d *Display) Start(i int, spec string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.i, d.spec, d.began, d.runs, d.current = i, spec, time.Now(), 0, ""
	d.say("opening", false)
	d.stop = make(chan struct{})
	go d.heartbeat(d.stop)
}

// Opened: the target is up.
func (d *Display) Opened(run *TargetRun) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.current = "opened"
	d.say(fmt.Sprintf("%s %s (opened in %.1f s)", run.Info.DBMS, run.Info.Version, time.Since(d.began).Seconds()), !d.redraw)
}

// Run shows Test's progress.
func (d *Display) Run(p Progress) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.runs = p.Of
	d.current = fmt.Sprintf("%d/%d %s at %s", p.N, p.Of, p.Entry.Bug, p.Level.Abbrev())
	if !d.redraw && time.Since(d.last) < displayEvery {
		return
	}
	d.say(fmt.Sprintf("%s (%.0f s)", d.current, time.Since(d.began).Seconds()), false)
}

// Done: the target's run ended (and its server is stopped).
func (d *Display) Done(run *TargetRun) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		close(d.stop)
		d.stop = nil
	}
	repro := 0
	for _, r := range run.Results {
		for _, l := range r.Levels {
			if l.Status == Reproduces {
				repro++
			}
		}
	}
	msg := fmt.Sprintf("%s in %.1f s, %d reproduce", english.Plural(d.runs, "run"), time.Since(d.began).Seconds(), repro)
	if run.Err != nil {
		msg = "did not finish: " + oneLine(run.Err)
	}
	d.say(msg, true)
}

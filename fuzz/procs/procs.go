// Package procs runs one fuzz campaign as several worker processes (txlab
// fuzz --procs): each is txlab itself running one shard of the campaign and
// reporting to its parent as JSON lines on its stdout (Reporter); the parent
// (Run) shows one progress line, merges their summaries and their bundle
// directories, and writes the HTML report.
//
// Why worker processes: embedded SQLite (modernc.org/sqlite, C transpiled
// to Go) allocates through one lock per process (modernc.org/libc's
// Xmalloc/Xfree), which caps the workers of one process at a few times one
// worker on a large machine. Worker processes each have their own.
package procs

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/report"
)

// Message is one JSON line a worker process writes on its stdout for its
// parent: first the target, then its progress, last its summary.
type Message struct {
	Target   string         `json:"target,omitempty"`
	Progress *fuzz.Progress `json:"progress,omitempty"`
	Summary  *fuzz.Summary  `json:"summary,omitempty"`
}

// progressEvery bounds how often a worker process sends its progress.
const progressEvery = 250 * time.Millisecond

// Reporter is the worker process's side: its messages to the parent.
type Reporter struct {
	enc  *json.Encoder
	last time.Time
	err  error // the first failed write: the parent is gone
}

// NewReporter reports to the parent on w (the worker process's stdout).
func NewReporter(w io.Writer) *Reporter { return &Reporter{enc: json.NewEncoder(w)} }

// Send sends m; after a failed write it sends nothing more (Finish says so).
func (r *Reporter) Send(m Message) {
	if r.err == nil {
		r.err = r.enc.Encode(m)
	}
}

// Progress sends p, at most every progressEvery (fuzz.Options.OnProgress).
func (r *Reporter) Progress(p fuzz.Progress) {
	if time.Since(r.last) < progressEvery {
		return
	}
	r.last = time.Now()
	r.Send(Message{Progress: &p})
}

// Finish ends the worker process's campaign: its bundles' signature counts
// saved in its directory (the parent merges them and writes the HTML
// report) and its summary sent to the parent. The error is the campaign's
// (runErr, else saving the counts), else a failed report to the parent;
// its findings are the caller's to count.
func (r *Reporter) Finish(sum *fuzz.Summary, runErr error, w *report.Writer) error {
	if w != nil {
		if err := w.SaveSummary(); err != nil && runErr == nil {
			runErr = err
			sum.Error = err.Error()
		}
	}
	r.Send(Message{Summary: sum})
	switch {
	case runErr != nil:
		return runErr
	case r.err != nil:
		return fmt.Errorf("reporting to the parent process: %w", r.err)
	}
	return nil
}

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/target"
)

// bugProgress says on stderr which target and bug bugs test is on: on a
// terminal one line redrawn in place, else a line when a target starts,
// opens and ends, and one every bugProgressEvery in between.
type bugProgress struct {
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

// bugProgressEvery is the interval between plain progress lines (a
// variable for the tests).
var bugProgressEvery = 10 * time.Second

// newBugProgress writes to w, redrawing in place when w is a terminal and
// redraw allows it (-v's log lines would break the line).
func newBugProgress(w io.Writer, redraw bool, targets int) *bugProgress {
	f, ok := w.(*os.File)
	return &bugProgress{w: w, of: targets, redraw: redraw && ok && term.IsTerminal(int(f.Fd()))}
}

// heartbeat repeats the current line every bugProgressEvery while a run
// takes long (a case waiting out its hang bound, a server starting), so
// that a plain log never falls silent.
func (p *bugProgress) heartbeat(stop <-chan struct{}) {
	t := time.NewTicker(min(time.Second, bugProgressEvery/3))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			select {
			case <-stop: // done came first: its line is the last
				p.mu.Unlock()
				return
			default:
			}
			if !p.redraw && time.Since(p.last) >= bugProgressEvery {
				msg := p.current
				if msg == "" {
					msg = "opening"
				}
				p.say(fmt.Sprintf("%s (%.0f s)", msg, time.Since(p.began).Seconds()), false)
			}
			p.mu.Unlock()
		}
	}
}

func (p *bugProgress) say(msg string, keep bool) {
	prefix := "txlab bugs test: " + p.spec
	if p.of > 1 {
		prefix = fmt.Sprintf("txlab bugs test [%d/%d] %s", p.i+1, p.of, p.spec)
	}
	switch {
	case p.redraw && keep:
		fmt.Fprintf(p.w, "\r\033[K%s: %s\n", prefix, msg)
	case p.redraw:
		fmt.Fprintf(p.w, "\r\033[K%s: %s", prefix, msg)
	default:
		fmt.Fprintf(p.w, "%s: %s\n", prefix, msg)
		p.last = time.Now()
	}
}

// start: target i (spec, as shown) is being opened.
func (p *bugProgress) start(i int, spec string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.i, p.spec, p.began, p.runs, p.current = i, spec, time.Now(), 0, ""
	p.say("opening", false)
	p.stop = make(chan struct{})
	go p.heartbeat(p.stop)
}

// opened: the target is up.
func (p *bugProgress) opened(bt *bugTarget) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = "opened"
	p.say(fmt.Sprintf("%s %s (opened in %.1f s)", bt.Info.DBMS, bt.Info.Version, time.Since(p.began).Seconds()), !p.redraw)
}

// run: bugs.Test's progress.
func (p *bugProgress) run(pr bugs.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs = pr.Of
	p.current = fmt.Sprintf("%d/%d %s at %s", pr.N, pr.Of, pr.Entry.Bug, pr.Level.Abbrev())
	if !p.redraw && time.Since(p.last) < bugProgressEvery {
		return
	}
	p.say(fmt.Sprintf("%s (%.0f s)", p.current, time.Since(p.began).Seconds()), false)
}

// done: the target's run ended (and its server is stopped).
func (p *bugProgress) done(bt *bugTarget) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	repro := 0
	for _, r := range bt.Results {
		for _, l := range r.Levels {
			if l.Status == bugs.Reproduces {
				repro++
			}
		}
	}
	msg := fmt.Sprintf("%s in %.1f s, %d reproduce", english.Plural(p.runs, "run"), time.Since(p.began).Seconds(), repro)
	if bt.Err != nil {
		msg = "did not finish: " + oneLine(bt.Err)
	}
	p.say(msg, true)
}

// statusCells are the table's short statuses.
var statusCells = map[string]string{
	bugs.Reproduces:    "yes",
	bugs.NotReproduced: "no",
	bugs.Error:         "error",
	bugs.Unsupported:   "n/a",
	bugs.Refused:       "refused",
}

// bugCell is one target's cell for a bug at a level: its status, the
// verdict when there is one, ! when it differs from the recorded status.
func bugCell(l bugs.LevelResult) string {
	s := statusCells[l.Status]
	if s == "" {
		s = l.Status
	}
	if l.Verdict != "" && l.Verdict != "none" {
		s += " (" + l.Verdict + ")"
	}
	if l.Changed {
		s += " !"
	}
	return s
}

// bugRow is a row of the table: a bug of one DBMS at one level.
type bugRow struct {
	dbms, bug string
	level     target.Level
}

// writeBugMatrix prints the table of several targets — a row per bug and
// level, grouped by the bugs' DBMS, a column per target — then each
// target's statuses compared with those the status headers record.
func writeBugMatrix(w io.Writer, runs []*bugTarget) {
	cells := make([]map[bugRow]string, len(runs))
	var rows []bugRow
	var dbmsOrder []string
	for i, bt := range runs {
		cells[i] = map[bugRow]string{}
		if d := bt.Info.DBMS; d != "" && !slices.Contains(dbmsOrder, d) {
			dbmsOrder = append(dbmsOrder, d)
		}
		for _, r := range bt.Results {
			for _, l := range r.Levels {
				row := bugRow{r.DBMS, r.Bug, l.Level}
				if _, ok := cells[i][row]; !ok && !slices.Contains(rows, row) {
					rows = append(rows, row)
				}
				cells[i][row] = bugCell(l)
			}
		}
	}
	// The targets' own DBMSs first, in the columns' order; then the
	// DBMSs whose bugs ran on another's server (MySQL's on MariaDB).
	group := func(d string) int {
		if i := slices.Index(dbmsOrder, d); i >= 0 {
			return i
		}
		return len(dbmsOrder)
	}
	slices.SortStableFunc(rows, func(a, b bugRow) int {
		if c := group(a.dbms) - group(b.dbms); c != 0 {
			return c
		}
		if c := strings.Compare(a.dbms, b.dbms); c != 0 {
			return c
		}
		if c := strings.Compare(a.bug, b.bug); c != 0 {
			return c
		}
		return slices.Index(target.AllLevels, a.level) - slices.Index(target.AllLevels, b.level)
	})

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head, vers := "DBMS\tBUG\tLEVEL", "\t\t"
	for _, bt := range runs {
		v := bugs.Release(bt.Info.Version)
		switch {
		case bt.Info.DBMS == "":
			v = "(did not start)"
		case bt.Err != nil:
			v += " (stopped)"
		}
		head += "\t" + bt.label()
		vers += "\t" + v
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, vers)
	for _, row := range rows {
		line := row.dbms + "\t" + row.bug + "\t" + row.level.Abbrev()
		for i := range runs {
			c, ok := cells[i][row]
			if !ok {
				c = "—"
			}
			line += "\t" + c
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if len(rows) == 0 {
		fmt.Fprintln(w, "(no bug ran)")
	}
	fmt.Fprintln(w, "yes: reproduces, no: does not, n/a: no such level, (verdict): the strongest oracle verdict;")
	fmt.Fprintln(w, "—: not in the target's corpus; !: differs from the status recorded for that version")
	fmt.Fprintln(w)
	writeRecordedComparison(w, runs)
}

// writeRecordedComparison prints, per target, how its statuses compare with
// those the case files' status headers record for its DBMS version: how
// many match, each one that changed, how many have none recorded.
func writeRecordedComparison(w io.Writer, runs []*bugTarget) {
	fmt.Fprintln(w, "compared with the recorded statuses (status headers):")
	for _, bt := range runs {
		name := bt.label()
		if bt.Info.DBMS == "" {
			fmt.Fprintf(w, "  %s: did not start: %s\n", name, oneLine(bt.Err))
			continue
		}
		key := bt.Info.DBMS + "-" + bugs.VersionKey(bt.Info.Version)
		same, none := 0, 0
		var changed []string
		for _, r := range bt.Results {
			for _, l := range r.Levels {
				switch {
				case l.Recorded == "":
					none++
				case l.Changed:
					c := fmt.Sprintf("    %s %s: %s, recorded %s", r.Bug, l.Level.Abbrev(), l.Status, l.Recorded)
					switch {
					case l.Error != "":
						c += " — " + oneLine(fmt.Errorf("%s", l.Error))
					case len(l.Failed) > 0:
						c += " — " + strings.Join(l.Failed, "; ")
					}
					changed = append(changed, c)
				default:
					same++
				}
			}
		}
		parts := []string{fmt.Sprintf("%d as recorded", same)}
		if len(changed) > 0 {
			parts = append(parts, fmt.Sprintf("%d CHANGED", len(changed)))
		}
		if none > 0 {
			parts = append(parts, fmt.Sprintf("%d not recorded for %s (txlab bugs test --db %s --isolation all --record bugs)", none, key, bt.Spec))
		}
		if bt.Err != nil {
			parts = append(parts, "stopped: "+oneLine(bt.Err))
		}
		server := bt.Info.DBMS + " " + bugs.Release(bt.Info.Version)
		if name != bt.Info.DBMS {
			server = name + " (" + server + ")"
		}
		fmt.Fprintf(w, "  %s: %s\n", server, strings.Join(parts, ", "))
		for _, c := range changed {
			fmt.Fprintln(w, c)
		}
	}
}

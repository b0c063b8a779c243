// Package shell is txlab's interactive session over several connections
// (txlab shell): lines "N> statement;" go to connection N, a bare statement
// to the last connection used, and each statement runs through the
// executor's protocol (executor.Live), so a statement that waits on a lock
// prints BLOCKED at once and its RESUMED result when it completes, while the
// other connections stay usable. Backslash commands inspect the session and
// save it as a case file that txlab run replays.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Help is what \help prints.
const Help = `Statements:
  N> statement;       run on connection N (opened on first use), e.g. 2> UPDATE t SET v = 1;
  statement;          run on the last connection used (1 at first)
  A statement may span lines up to its ';'. A statement that waits on a lock prints
  BLOCKED; its RESUMED result prints when it completes. Statements typed on a
  blocked connection queue behind it.
Commands:
  \help               this text
  \conns              the connections: level, transaction, blocked statement, queue
  \isolation N LEVEL  connection N's level (rc, rr, ser, …) for its next transaction (\save
                      writes what follows a change on a connection of its own)
  \state              dump txlab's tables (committed data)
  \save FILE          write the session so far as a case file (txlab run FILE replays it)
  \quit               end the session (open transactions roll back); so does Ctrl-D`

// Shell is one interactive session on a target.
type Shell struct {
	t    target.Target
	live *executor.Live
	out  io.Writer
	mu   sync.Mutex // serialises writes to out
	last int        // the connection a bare statement goes to
	// split reads the text typed since the last statement ran, typed
	// counts its bytes, and done are the statements it completed while
	// the line went on with another (they run once the text ends at a ';').
	split testcase.Statements
	typed int
	done  []string
	conn  int // the connection of the statement being typed
	// invalid are the steps the DBMS rejected as invalid (Event.Step →
	// the statement as shown); \save leaves them out. Poll's goroutine
	// adds to it too, hence invMu.
	invMu   sync.Mutex
	invalid map[int]string
}

// New starts a session: txlab's tables are emptied, as before a case.
// Connections open at level (empty: the DBMS default).
func New(ctx context.Context, t target.Target, level target.Level, opt executor.Options, out io.Writer) (*Shell, error) {
	info := t.Info()
	c := &testcase.Case{Isolation: level, DBMS: info.DBMS,
		Comments: []string{fmt.Sprintf("Saved by txlab shell on %s %s.", info.DBMS, info.Version)}}
	live, err := executor.StartLive(ctx, t, c, opt)
	if err != nil {
		return nil, err
	}
	return &Shell{t: t, live: live, out: out, last: 1}, nil
}

// Close ends the session: open transactions roll back; statements still
// blocked are reported.
func (s *Shell) Close() error {
	s.Poll()
	for _, c := range s.live.Conns() {
		if c.Blocked != "" {
			s.printf("%d> %s;  still blocked at the end of the session: cancelled\n", c.Conn, oneLine(c.Blocked))
		}
	}
	return s.live.Close()
}

// Prompt is the prompt for the next line: the connection a bare statement
// goes to, or a continuation.
func (s *Shell) Prompt() string {
	if s.typed > 0 {
		return "   ...> "
	}
	return fmt.Sprintf("txlab %d> ", s.last)
}

// Interrupt drops the statement being typed (Ctrl-C at a continuation
// prompt), so that the next line starts a new one rather than being glued
// to the text the person gave up on. It reports whether there was any.
func (s *Shell) Interrupt() bool {
	had := s.typed > 0
	s.dropTyped()
	return had
}

// dropTyped forgets the text typed since the last statement ran.
func (s *Shell) dropTyped() {
	s.split.Reset()
	s.typed, s.done = 0, nil
}

var stepPrefix = regexp.MustCompile(`^\s*(\d+)\s*>\s?`)

// ErrQuit is returned by Line for \quit.
var ErrQuit = errors.New("quit")

// SaveError is returned by Line when \save could not write its file. A
// script that goes on would end as if the case were saved; a person at a
// terminal can save elsewhere without losing the session.
type SaveError struct{ Err error }

func (e *SaveError) Error() string { return `\save: ` + e.Err.Error() }
func (e *SaveError) Unwrap() error { return e.Err }

// Line handles one input line. Errors of statements are printed as their
// outcome; the error returned is a failure of the session itself (a lost
// connection), a *SaveError or ErrQuit.
func (s *Shell) Line(ctx context.Context, line string) error {
	if s.typed == 0 {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			return nil
		}
		if strings.HasPrefix(trimmed, `\`) {
			return s.command(ctx, trimmed)
		}
		s.conn = s.last
		if m := stepPrefix.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 || n > 1000 {
				s.printf("error: connection %q: want a number from 1 to 1000\n", m[1])
				return nil
			}
			s.conn = n
			line = line[len(m[0]):]
		}
	}
	s.typed += len(line) + 1
	if s.typed > testcase.MaxBytes {
		// The bound of a case file: a statement past it costs the
		// server, the judging and txlab's memory more than it is worth.
		s.dropTyped()
		return fmt.Errorf("a statement longer than %d bytes (the bound of a case file)", testcase.MaxBytes)
	}
	s.done = append(s.done, s.split.Feed(line+"\n")...)
	if s.split.Pending() {
		return nil // no ';' yet, or a quote or comment still open: read on
	}
	stmts := s.done
	s.dropTyped()
	if len(stmts) == 0 {
		return nil // comments, or ';' alone
	}
	s.last = s.conn
	for _, sql := range stmts {
		evs, err := s.live.Exec(s.conn, sql)
		s.print(evs)
		if err == nil && len(evs) == 0 {
			s.printf("%d> %s;  QUEUED behind connection %d's blocked statement\n", s.conn, oneLine(sql), s.conn)
		}
		if err != nil {
			var scope *executor.ScopeError
			if errors.As(err, &scope) {
				s.printf("refused: %v\n", err)
				continue
			}
			return err
		}
	}
	return nil
}

// Poll prints what completed on its own since the last statement (a lock
// wait that timed out, a deadlock the server broke).
func (s *Shell) Poll() error {
	evs, err := s.live.Poll()
	s.print(evs)
	return err
}

func (s *Shell) command(ctx context.Context, line string) error {
	f := strings.Fields(line)
	switch f[0] {
	case `\help`, `\h`, `\?`:
		s.printf("%s\n", Help)
	case `\quit`, `\q`, `\exit`:
		return ErrQuit
	case `\conns`:
		conns := s.live.Conns()
		if len(conns) == 0 {
			s.printf("no connection open yet\n")
		}
		for _, c := range conns {
			state := "idle"
			switch {
			case c.Blocked != "":
				state = "BLOCKED on " + oneLine(c.Blocked)
				if c.Queued > 0 {
					state += fmt.Sprintf(" (%d queued)", c.Queued)
				}
			case c.Aborted:
				state = "transaction aborted by the DBMS: statements are skipped until COMMIT or ROLLBACK"
			case c.InTxn:
				state = "in a transaction"
			}
			level := string(c.Level)
			if level == "" {
				level = "default level"
			}
			s.printf("%d: %s, %s\n", c.Conn, level, state)
		}
	case `\isolation`:
		if len(f) != 3 {
			s.printf("usage: \\isolation N LEVEL (e.g. \\isolation 2 rc)\n")
			return nil
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 {
			s.printf("error: connection %q is not a number ≥ 1\n", f[1])
			return nil
		}
		l, err := target.ParseLevel(f[2])
		if err == nil && !slices.Contains(s.t.Levels(), l) {
			err = fmt.Errorf("%s has no level %s", s.t.Info().DBMS, l)
		}
		if err == nil {
			err = s.live.SetIsolation(n, l)
		}
		if err != nil {
			s.printf("error: %v\n", err)
			return nil
		}
		s.printf("connection %d: %s\n", n, l)
	case `\state`:
		st, err := s.t.Dump(ctx)
		if err != nil {
			s.printf("error: %v\n", err)
			return nil
		}
		if len(st) == 0 {
			s.printf("no tables\n")
		}
		for _, name := range st.Tables() {
			rows := st[name]
			s.printf("%s: %d row%s\n", name, len(rows), english.S(len(rows)))
			for _, r := range rows {
				s.printf("  %s\n", executor.FormatRow(r))
			}
		}
	case `\save`:
		if len(f) != 2 {
			s.printf("usage: \\save FILE\n")
			return nil
		}
		// A statement the DBMS rejected as invalid was mistyped: the case
		// leaves it out (and says so), so that the file replays what the
		// session meant.
		s.invMu.Lock()
		invalid := maps.Clone(s.invalid)
		s.invMu.Unlock()
		drop := map[int]bool{}
		for i := range invalid {
			drop[i] = true
		}
		c := s.live.CaseWithout(drop)
		for _, i := range slices.Sorted(maps.Keys(invalid)) {
			s.printf("left out %s (the DBMS rejected it as invalid)\n", invalid[i])
		}
		// What the case had to change to replay the session (a connection
		// whose level changed mid-session) is said as well as written.
		for _, note := range c.Comments[min(1, len(c.Comments)):] {
			s.printf("note: %s\n", note)
		}
		text := c.String()
		if _, err := testcase.ParseString(f[1], text); err != nil {
			// Never write a file txlab run rejects.
			return &SaveError{Err: fmt.Errorf("the session does not make a valid case file (%v); nothing written", err)}
		}
		if err := atomicfile.WriteFile(f[1], []byte(text), 0o644); err != nil {
			return &SaveError{Err: err}
		}
		s.printf("saved %d setup statement%s and %d step%s to %s (replay: txlab run --db %s %s)\n",
			len(c.Setup), english.S(len(c.Setup)), len(c.Steps), english.S(len(c.Steps)), f[1], s.t.Info().DBMS, f[1])
	default:
		s.printf("unknown command %s (\\help lists them)\n", f[0])
	}
	return nil
}

func (s *Shell) print(evs []executor.Event) {
	for _, ev := range evs {
		if ev.Error != nil && ev.Error.Class == target.ClassSyntax && ev.Step >= 0 && !ev.Added {
			s.invMu.Lock()
			if s.invalid == nil {
				s.invalid = map[int]string{}
			}
			s.invalid[ev.Step] = fmt.Sprintf("%d> %s;", ev.Conn, oneLine(ev.SQL))
			s.invMu.Unlock()
		}
		s.printf("%d> %s;  %s\n", ev.Conn, oneLine(ev.SQL), executor.Outcome(ev))
	}
}

// printf prints a line made of the shell's own format and args that may
// come from the session (statements, values, server messages, file names):
// every string, error and Stringer among args is printed terminal-safe
// (termsafe).
func (s *Shell) printf(format string, args ...any) {
	safe := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case string:
			safe[i] = termsafe.Text(x)
		case error:
			safe[i] = termsafe.Text(x.Error())
		case fmt.Stringer:
			safe[i] = termsafe.Text(x.String())
		default:
			safe[i] = a
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.out, format, safe...)
}

// PollEvery prints completions that happen between lines until ctx ends:
// what a person at the terminal expects while thinking.
func (s *Shell) PollEvery(ctx context.Context, d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Poll(); err != nil {
				s.printf("error: %v\n", err)
				return
			}
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/chzyer/readline"

	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/testcase"
)

// RunTerminal feeds the lines typed at rl to the shell until Ctrl-D,
// \quit (ErrQuit) or a failed session. Ctrl-C drops the line being typed,
// and a failed \save is said and the session goes on: a person can save
// elsewhere, and ending would lose the session.
func (s *Shell) RunTerminal(ctx context.Context, rl *readline.Instance) error {
	for {
		rl.SetPrompt(s.Prompt())
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			// At a continuation prompt, also the statement it continues.
			s.Interrupt()
			continue
		}
		if err != nil {
			return nil // Ctrl-D
		}
		if err := s.Line(ctx, line); err != nil {
			var save *SaveError
			if errors.As(err, &save) {
				fmt.Fprintf(rl.Stderr(), "error: %s\n", termsafe.Text(err.Error()))
				continue
			}
			return err
		}
	}
}

// RunScript feeds a script's lines to the shell until it ends, \quit
// (ErrQuit) or the session fails, printing what completed after each line.
func (s *Shell) RunScript(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), testcase.MaxBytes+1)
	for sc.Scan() {
		if err := s.Line(ctx, sc.Text()); err != nil {
			return err
		}
		if err := s.Poll(); err != nil {
			return err
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Errorf("a line longer than %d bytes (the bound of a case file)", testcase.MaxBytes)
	}
	return sc.Err()
}

// Package exitcode carries txlab's exit status inside an error, so that
// the packages that run a command's work say how it ended and the command
// layer only prints the error and exits: 0 (no error), 1 a finding with
// verdict bug (or a violated history, a changed status under --check), 2
// a usage or infrastructure error.
package exitcode

import (
	"errors"
	"fmt"

	"github.com/txlab/txlab/internal/english"
)

// Error is an error with the exit status it ends the command with. Err
// may be nil: the reason is printed already (each failed case on its own
// line), and only the status remains to be said.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Fault is exit status 2 for err: a usage error, or a fault of the
// infrastructure (a server that stopped answering, a file not written).
func Fault(err error) error { return &Error{Code: 2, Err: err} }

// Findings is exit status 1 when a run found n > 0 findings with verdict
// bug, nil otherwise.
func Findings(n int) error {
	if n <= 0 {
		return nil
	}
	return &Error{Code: 1, Err: fmt.Errorf("%s with verdict bug", english.Plural(n, "finding"))}
}

// Of is the exit status err ends a command with: 0 for nil, the Error's
// code, and 2 for any other error.
func Of(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 2
}

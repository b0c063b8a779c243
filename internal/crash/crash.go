// Package crash turns a panic into one line: txlab's promise is that a run
// ends with exit status 2 and a one-line message, never a Go trace, and a
// panic in any goroutine (a worker, a statement's, a watchdog's) would
// otherwise end the process with one. The command's main goroutine
// recovers with Recover; a goroutine that delivers an error hands its
// panic over with Call or Do, so the command's own cleanup (a throwaway
// server's stop, the case account's drop) still runs; the rare goroutine
// with no one to hand it to ends the process with Exit.
//
// Go's "fatal error: out of memory" and other runtime fatal errors cannot
// be recovered; txlab's bounds on what it keeps (target.Limits) are what
// keeps it from them.
package crash

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Error is a recovered panic.
type Error struct {
	Value any
	// Where is the function, file and line that panicked.
	Where string
}

func (e *Error) Error() string {
	return fmt.Sprintf("internal error: %v (at %s); please report it with the command line", e.Value, e.Where)
}

// Recover, deferred, turns a panic into *err (an *Error). It must be the
// deferred function itself: recover works only there.
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = newError(v)
	}
}

// Call runs fn and returns what it returns, or a panic as an *Error.
func Call[T any](fn func() (T, error)) (v T, err error) {
	defer Recover(&err)
	return fn()
}

// Do runs fn and returns its error, or a panic as an *Error.
func Do(fn func() error) (err error) {
	defer Recover(&err)
	return fn()
}

// Exit, deferred in a goroutine whose panic nobody else can receive,
// writes the panic as one line on stderr and ends the process with
// status 2.
func Exit() {
	if v := recover(); v != nil {
		exit(os.Stderr, newError(v))
	}
}

func exit(w io.Writer, e *Error) {
	fmt.Fprintln(w, "txlab:", e.Error())
	os.Exit(2)
}

func newError(v any) *Error {
	if e, ok := v.(*Error); ok {
		return e // re-panicked
	}
	return &Error{Value: oneLine(fmt.Sprint(v)), Where: where()}
}

// where finds the frame that panicked: the first one below runtime's
// panic machinery (gopanic, and for a runtime error its helpers).
func where() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s %s:%d", shortFunc(f.Function), shortFile(f.File), f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// shortFunc drops the module path: txlab/executor.(*runner).run.
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

// shortFile keeps the file's package directory and name.
func shortFile(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

package target

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Pinger is implemented by targets that talk to a server: they can tell
// whether it answers at all. A case that outlives its bound is a hang
// finding only while the server still answers; a server that does not is a
// fault of the run (frozen, overloaded), and the command stops.
type Pinger interface {
	// Ping runs a trivial query on a connection of the target's own (not
	// a session's, which may be waiting for a lock).
	Ping(ctx context.Context) error
	// Addr names the server in messages (host:port).
	Addr() string
}

// FrozenError reports a server that did not answer a trivial query within
// After.
type FrozenError struct {
	Addr  string
	After time.Duration
}

func (e *FrozenError) Error() string {
	return fmt.Sprintf("the server at %s did not answer for %v (frozen or overloaded); stopping", e.Addr, e.After)
}

// PingTimeout is how long CheckAlive waits for an answer: the hang bound,
// within 1 to 5 seconds. A live server answers a trivial query in
// milliseconds even under load; a few seconds rule out a slow scheduler.
func PingTimeout(hang time.Duration) time.Duration {
	return min(max(hang, time.Second), 5*time.Second)
}

// CheckAlive asks t's server a trivial query and returns a *FrozenError
// when no answer comes within d. Another failure (connection refused: the
// server is gone) is returned as it is; nil when the server answered or t
// has no server to ask (embedded SQLite). When ctx ends first its error is
// returned.
func CheckAlive(ctx context.Context, t Target, d time.Duration) error {
	p, ok := As[Pinger](t)
	if !ok {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := p.Ping(pctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case pctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return &FrozenError{Addr: p.Addr(), After: d}
	}
	return fmt.Errorf("the server at %s: %w", p.Addr(), err)
}

// IsFrozen reports whether err says a server stopped answering.
func IsFrozen(err error) bool {
	var fe *FrozenError
	return errors.As(err, &fe)
}

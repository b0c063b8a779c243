package executor

import (
	"context"
	"time"

	"github.com/txlab/txlab/internal/crash"
	"github.com/txlab/txlab/target"
)

// Watch runs fn under a context of its own and returns what fn returns.
// fn is expected to keep deadline itself (every query bounded); Watch is
// the guard for the one case it cannot: once deadline passes with fn still
// running, the server is asked a trivial query (target.CheckAlive with
// ping), and when it does not answer Watch cancels fn's context and
// returns the *target.FrozenError at once, leaving fn to end by its own
// bounds (a frozen server holds every connection to it, and closing them
// one by one costs seconds each). While the server answers, Watch waits
// for fn; what fn returns after its deadline is returned only once the
// server has answered.
func Watch[T any](ctx context.Context, t target.Target, deadline time.Time, ping time.Duration, fn func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan result, 1)
	go func() {
		v, err := crash.Call(func() (T, error) { return fn(fctx) })
		done <- result{v, err}
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		cancel()
		return r.v, r.err
	case <-timer.C:
	}
	alive := make(chan error, 1)
	go func() {
		alive <- crash.Do(func() error { return target.CheckAlive(context.WithoutCancel(ctx), t, ping) })
	}()
	var zero T
	select {
	case r := <-done:
		// Whatever fn made of the time past its deadline (a hang, a
		// failed query), the server's silence explains it.
		cancel()
		if err := <-alive; target.IsFrozen(err) {
			return zero, err
		}
		return r.v, r.err
	case err := <-alive:
		if target.IsFrozen(err) {
			cancel()
			return zero, err
		}
	}
	r := <-done
	cancel()
	return r.v, r.err
}

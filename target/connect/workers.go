package connect

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/txlab/txlab/target"
)

// OpenWorkers opens the targets of a campaign's workers 2 to n beside
// first, worker 1's target, opened from raw: the same server (a throwaway
// one is shared) with opts(w)'s schema for worker w, or a fresh SQLite
// file each. Opening counts in the campaign's time: once until (unless
// zero) has passed, the campaign runs with the workers opened so far, and
// log (when not nil) says so. An error closes none of first; it closes
// the workers opened before it.
func OpenWorkers(ctx context.Context, first target.Target, raw string, n int, until time.Time, opts func(w int) Options, log io.Writer) ([]target.Target, error) {
	spec := raw
	if srv := Server(first); srv != nil {
		spec = srv.DSN()
	}
	if n > 1 && strings.HasPrefix(spec, "sqlite:") {
		return nil, fmt.Errorf("--workers %d needs a database per worker: use --db sqlite (fresh files) instead of %s", n, spec)
	}
	if n > 1 && strings.HasPrefix(spec, "duckdb:") {
		return nil, fmt.Errorf("--workers %d needs a database per worker: use --db duckdb (fresh files) instead of %s", n, spec)
	}
	octx := ctx
	if !until.IsZero() {
		var cancel context.CancelFunc
		octx, cancel = context.WithDeadline(ctx, until)
		defer cancel()
	}
	var out []target.Target
	for w := 2; w <= n; w++ {
		t, err := Open(octx, spec, opts(w))
		if err != nil && ctx.Err() == nil && octx.Err() != nil {
			if log != nil {
				fmt.Fprintf(log, "txlab: --duration ended while opening worker %d: running with %d\n", w, len(out)+1)
			}
			break
		}
		if err != nil {
			for _, t := range out {
				t.Close()
			}
			return nil, fmt.Errorf("worker %d: %w", w, err)
		}
		out = append(out, t)
	}
	return out, nil
}

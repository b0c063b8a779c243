package mt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/internal/crash"
)

// CheckFile is `txlab check --model M HISTORY.jsonl`: it reads the history,
// checks it and returns the exit status (0 valid, 1 violated, 2 bad input or
// model), a human report, and the value to print with --json (a *Result, or
// a map with an "error" for status 2).
func CheckFile(path, model string) (exit int, report string, js any) {
	fail := func(err error) (int, string, any) {
		return 2, err.Error() + "\n", map[string]string{"error": err.Error()}
	}
	m, err := ParseModel(model)
	if err != nil {
		return fail(err)
	}
	h, err := history.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	if len(h.Txns) == 0 {
		// Valid would say the history was checked; an empty file is more
		// likely a recorder that wrote nothing or the wrong path.
		return fail(fmt.Errorf("%s: no transactions: an empty history checks nothing", path))
	}
	res, err := Check(h, m)
	var ie *InputError
	if errors.As(err, &ie) {
		return fail(fmt.Errorf("%s: %w", path, err))
	} else if err != nil {
		return fail(err)
	}
	if res.Valid {
		return 0, fmt.Sprintf("%s: %d transactions, %s: valid\n", path, res.Txns, m), res
	}
	return 1, Format(path, res), res
}

// CheckFileContext is CheckFile ended early by ctx, with its error then:
// opening or reading a FIFO (or a stalled network file) blocks in the
// kernel where no context reaches, so the check runs in a goroutine of
// its own, and an interrupted process ends with the reader still waiting.
func CheckFileContext(ctx context.Context, path, model string) (exit int, report string, js any, err error) {
	type result struct {
		exit   int
		report string
		js     any
	}
	done := make(chan result, 1)
	go func() {
		defer crash.Exit()
		var r result
		r.exit, r.report, r.js = CheckFile(path, model)
		done <- r
	}()
	select {
	case r := <-done:
		return r.exit, r.report, r.js, nil
	case <-ctx.Done():
		return 2, "", nil, ctx.Err()
	}
}

// Format renders a result for people: one block per anomaly with its name,
// class, explanation and the transactions with their operations.
func Format(path string, res *Result) string {
	var b strings.Builder
	verdict := "valid"
	if !res.Valid {
		verdict = fmt.Sprintf("VIOLATED (%d anomalies shown)", len(res.Anomalies))
	}
	fmt.Fprintf(&b, "%s: %d transactions, %s: %s\n", path, res.Txns, res.Model, verdict)
	for _, a := range res.Anomalies {
		fmt.Fprintf(&b, "\n%s", a.Name)
		if a.Class != "" {
			fmt.Fprintf(&b, " (%s)", a.Class)
		}
		fmt.Fprintf(&b, "\n  %s\n", a.Explanation)
		for _, t := range a.Txns {
			fmt.Fprintf(&b, "  T%d session %d %s: %s\n", t.ID, t.Session, t.Status, strings.Join(t.Ops, " "))
		}
	}
	return b.String()
}

package mt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/internal/crash"
)

// CheckFile is `txlab check --model M HISTORY.jsonl`: it reads the history,
// checks it and returns the exit status (0 valid, 1 violated, 2 bad input or
// model), a human report, and the value to print with --json (a *Result, or
// a map with an "error" for status 2). It reads at most DefaultMaxTxns
// transactions, see Limits.
func CheckFile(path, model string) (exit int, report string, js any) {
	return CheckFileLimits(path, model, Limits{})
}

// CheckFileLimits is CheckFile within lim.
func CheckFileLimits(path, model string, lim Limits) (exit int, report string, js any) {
	fail := func(err error) (int, string, any) {
		return 2, err.Error() + "\n", map[string]string{"error": err.Error()}
	}
	m, err := ParseModel(model)
	if err != nil {
		return fail(err)
	}
	h, err := readFile(path, lim)
	if err != nil {
		return fail(err)
	}
	if len(h.Txns) == 0 {
		// Valid would say the history was checked; an empty file is more
		// likely a recorder that wrote nothing or the wrong path.
		return fail(fmt.Errorf("%s: no transactions: an empty history checks nothing", path))
	}
	res, err := check(h, m)
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

// CheckFileContext is CheckFileLimits ended early by ctx, with its error
// then: opening or reading a FIFO (or a stalled network file) blocks in the
// kernel where no context reaches, so the check runs in a goroutine of
// its own, and an interrupted process ends with the reader still waiting.
func CheckFileContext(ctx context.Context, path, model string, lim Limits) (exit int, report string, js any, err error) {
	type result struct {
		exit   int
		report string
		js     any
	}
	done := make(chan result, 1)
	go func() {
		defer crash.Exit()
		var r result
		r.exit, r.report, r.js = CheckFileLimits(path, model, lim)
		done <- r
	}()
	select {
	case r := <-done:
		return r.exit, r.report, r.js, nil
	case <-ctx.Done():
		return 2, "", nil, ctx.Err()
	}
}

// Limits bound the history CheckFile reads, and with it the memory it
// takes: a history past them is refused (exit 2, one line naming the
// limit and --max-transactions), before it is read where the file can be
// scanned first, else on the line that goes past them, instead of growing
// until the runtime or the kernel ends the process.
type Limits struct {
	// MaxTxns is the most transactions a history may have (0:
	// DefaultMaxTxns). Besides the initial transaction's writes (one line,
	// at most history.MaxLine), the transactions may have at most
	// MaxOpsPerTxn operations each on average: a mini-transaction has at
	// most four, a lightweight transaction two.
	MaxTxns int
}

// DefaultMaxTxns is the limit of `txlab check`, chosen from measurements
// (peak RSS, 2 and 16 cores): at 3M transactions a valid history of two
// operations a transaction (txlab's own average under three) takes 580–640
// MB, of three 730 MB, of four 890 MB; a violated one up to 790 MB. The
// exception is SSER histories whose real-time cycles join most
// transactions into one component: their garbage takes the heap to the
// runtime's 1 GiB soft limit (internal/memlimit), with 700 MB live. (Read
// as history.Txns, 3M transactions of two operations took 1.1 GB.)
const DefaultMaxTxns = 3_000_000

// BytesPerTxn is about the memory checking takes a transaction, for the
// message that names the limit.
const BytesPerTxn = 250

// MaxOpsPerTxn is the most operations a non-initial transaction may have
// on average within Limits: a mini-transaction has at most four.
const MaxOpsPerTxn = 4

func (l Limits) maxTxns() int {
	if l.MaxTxns <= 0 {
		return DefaultMaxTxns
	}
	return l.MaxTxns
}

// tooMany is the error of a history of more than max transactions.
func tooMany(max int) error {
	return fmt.Errorf("more than %d transactions: raise --max-transactions to check it (checking takes about %d MB of memory a million transactions)", max, BytesPerTxn)
}

// readFile reads the history at path into a chist within lim. A regular
// file is scanned first: for its number of transactions (lines that are
// neither blank nor comments), refused at once above lim, else the
// capacity to read them into without growing.
func readFile(path string, lim Limits) (*chist, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	capacity := 0
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		n, err := countTxnLines(f, lim.maxTxns())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if n > lim.maxTxns() {
			return nil, fmt.Errorf("%s: %w", path, tooMany(lim.maxTxns()))
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		capacity = n
	}
	h, err := readHistory(f, lim, capacity)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// readHistory reads a history from r into a chist of the given capacity,
// refusing it on the line that goes past lim.
func readHistory(r io.Reader, lim Limits, capacity int) (*chist, error) {
	maxTxns := lim.maxTxns()
	maxOps := int64(maxTxns) * MaxOpsPerTxn
	h := &chist{Txns: make([]ctxn, 0, capacity)}
	rd := history.NewReader(r)
	var slab opSlab
	ops := int64(0)
	for {
		t, err := rd.Next()
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return nil, err
		}
		if len(h.Txns) == maxTxns {
			return nil, fmt.Errorf("line %d: %w", rd.Line(), tooMany(maxTxns))
		}
		if !t.Init {
			if ops += int64(len(t.Ops)); ops > maxOps {
				return nil, fmt.Errorf("line %d: more than %d operations (%d a transaction for --max-transactions %d): raise --max-transactions to check it", rd.Line(), maxOps, MaxOpsPerTxn, maxTxns)
			}
		}
		h.Txns = append(h.Txns, newCtxn(t, slab.copy(t.Ops)))
	}
}

// countTxnLines counts the lines of r that history.Reader takes for
// transactions (neither blank nor comments), stopping past max.
func countTxnLines(r io.Reader, max int) (int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	n := 0
	inLine := false // inside a line already counted or skipped
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 && !inLine {
			// The start of a line says whether it is a transaction (a
			// line longer than the buffer is read in pieces), as
			// bytes.TrimSpace does for history.Reader. A line that starts
			// with more white space than the buffer holds is not counted:
			// the count is then low, and only the capacity is short.
			if s := bytes.TrimLeftFunc(b, unicode.IsSpace); len(s) > 0 && s[0] != '#' {
				n++
				if n > max {
					return n, nil
				}
			}
		}
		inLine = len(b) > 0 && b[len(b)-1] != '\n'
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return n, nil
		case err != nil:
			return 0, err
		}
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

package report

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxBundleFile bounds one file of a bundle txlab reads: well past what it
// writes (a case's results are bounded by --max-result-bytes), and little
// enough that a bundle someone sent cannot take the process's memory.
const MaxBundleFile = 256 << 20

// The files of a bundle that a report page shows (txlab report, and fuzz
// at the end of a run) have bounds of their own, far below MaxBundleFile:
// a page holds its case several times over (the case, the bug report to
// paste, the timeline), each HTML-escaped ("<" is four bytes), so a
// 250 MiB case.txn made a 1 GB report.html and took 3.6 GB of memory.
// A real finding's case file, report.txt and graph are kilobytes (a
// reduced case is a few statements, a fuzzer's case a few dozen) and its
// report.json and schedule.json tens of KiB (rows a troc finding quotes):
// these bounds are still hundreds of times that, and refuse no finding
// txlab writes. With every shown file of a bundle at its bound, its page
// is 67 MB and txlab report peaks near 430 MB, however many such bundles
// the directory holds (htmlreport keeps only their index rows).
const (
	// MaxPageText bounds a text file a page shows: case.txn,
	// case.orig.txn, report.txt, graph.dot, graph.svg.
	MaxPageText = 2 << 20
	// MaxPageJSON bounds a JSON file a page is made from: report.json,
	// schedule.json and the campaign's summary.
	MaxPageJSON = 8 << 20
)

// ErrNotRegular is ReadFile's refusal of a path that is not a plain file.
var ErrNotRegular = errors.New("not a plain file")

// ErrTooLarge is ReadFile's refusal of a file past its bound.
var ErrTooLarge = errors.New("larger than txlab reads")

// ReadFile reads one file of a bundle or a run's directory. A bundle may
// come from someone else, so a symbolic link (which could point at any
// file the user can read: a server's pg_hba.conf, another tool's secrets,
// copied into the report page they then share), a device or a FIFO is
// refused, and so is a file larger than MaxBundleFile. A missing file is
// fs.ErrNotExist, as os.ReadFile says.
func ReadFile(path string) ([]byte, error) {
	return ReadFileMax(path, MaxBundleFile)
}

// ReadFileMax is ReadFile with a bound of limit bytes (MaxPageText,
// MaxPageJSON): a larger file is refused with ErrTooLarge, in one line
// that names it and the bound, having read no more than the bound.
func ReadFileMax(path string, limit int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s): txlab reads only the files it writes in a bundle", path, ErrNotRegular, st.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &tooLargeError{path: path, limit: limit}
	}
	return data, nil
}

type tooLargeError struct {
	path  string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %d MiB txlab reads of a bundle's file", e.path, e.limit>>20)
}

func (e *tooLargeError) Unwrap() error { return ErrTooLarge }

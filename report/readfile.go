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

// ErrNotRegular is ReadFile's refusal of a path that is not a plain file.
var ErrNotRegular = errors.New("not a plain file")

// ReadFile reads one file of a bundle or a run's directory. A bundle may
// come from someone else, so a symbolic link (which could point at any
// file the user can read: a server's pg_hba.conf, another tool's secrets,
// copied into the report page they then share), a device or a FIFO is
// refused, and so is a file larger than MaxBundleFile. A missing file is
// fs.ErrNotExist, as os.ReadFile says.
func ReadFile(path string) ([]byte, error) {
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
	data, err := io.ReadAll(io.LimitReader(f, MaxBundleFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBundleFile {
		return nil, fmt.Errorf("%s: larger than the %d MiB txlab reads of a bundle's file", path, MaxBundleFile>>20)
	}
	return data, nil
}

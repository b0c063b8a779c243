// Package atomicfile writes files so that a reader — a person, txlab report,
// the next run sharing an --out directory — sees either the old content or
// the whole new content, never a truncated or empty file: a full disk used to
// leave 0-byte summary.json and report.html files behind a run that then
// said nothing or only warned.
package atomicfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFile writes data to path through a temporary file in the same
// directory, renamed over path once it is complete and synced; on any
// failure path is left as it was and the temporary file is removed. The
// error is an *os.PathError naming path itself (not the temporary name), so
// that one line tells the user which file could not be written.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if err := write(path, data, perm); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

func write(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := create(dir, base, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	// Filesystems that allocate late report a full disk only here or at
	// Close; after Sync the rename cannot expose a file with holes.
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// create makes the temporary file. Unlike os.CreateTemp it creates the file
// with perm, so the umask applies as it does to os.WriteFile. A dot name, so
// that a temporary file a crash leaves behind is not taken for a case, a
// bundle file or a page.
func create(dir, base string, perm os.FileMode) (*os.File, error) {
	for {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !os.IsExist(err) {
			return f, err
		}
	}
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOut says, before a campaign starts, when its --out directory cannot
// take a file (read-only, not writable by the user, under a file): the
// bundles are written as the findings come and the summary at the end, so
// the fault was found only after the whole --duration had run. A disk that
// fills during the campaign is still said when a write fails. A directory
// that does not exist yet is not made (a campaign that finds nothing writes
// none): the nearest existing directory above it must take a file instead.
func checkOut(dir string) error {
	if dir == "" {
		return nil
	}
	if err := writableDir(dir); err != nil {
		return fmt.Errorf("--out %s: cannot write there (%w); give another --out", dir, err)
	}
	return nil
}

// writableDir creates and removes a file in dir, or in the nearest existing
// directory above it.
func writableDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		if err == nil && !st.IsDir() {
			return fmt.Errorf("%s is a file", d)
		}
		if err == nil {
			break
		}
		parent := filepath.Dir(d)
		if !errors.Is(err, fs.ErrNotExist) || parent == d {
			return err
		}
		d = parent
	}
	f, err := os.CreateTemp(d, ".txlab-probe-*")
	if err != nil {
		return err
	}
	cerr := f.Close()
	return errors.Join(cerr, os.Remove(f.Name()))
}

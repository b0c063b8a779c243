package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Writable says why dir cannot take a file (read-only, not writable by
// the user, under a file), nil when it can: it creates and removes a file
// in dir, or in the nearest existing directory above it when dir does not
// exist yet (a campaign that finds nothing makes no directory, so this
// makes none either).
func Writable(dir string) error {
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

// CheckDir says, in a sentence, why dir is no directory of finding
// bundles to report over (txlab report), rather than the raw error of
// opening it; nil when it is a directory.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: a campaign that found nothing writes no directory (fuzz and run write bundles to --out, default %s)", dir, DefaultDir)
	case err != nil:
		return fmt.Errorf("%s: %w", dir, errors.Unwrap(err))
	case !st.IsDir():
		return fmt.Errorf("%s is a file: txlab report takes a directory of finding bundles (or one bundle's directory)", dir)
	}
	return nil
}

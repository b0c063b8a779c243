//go:build unix

package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFile: a bundle's plain file reads; a link to another file, a
// FIFO and a missing file do not, each with its own error.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(plain, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(plain); err != nil || string(data) != "ok" {
		t.Errorf("plain file: %q, %v", data, err)
	}
	link := filepath.Join(dir, "case.txn")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link); !errors.Is(err, ErrNotRegular) {
		t.Errorf("link: %v, want ErrNotRegular", err)
	}
	fifo := filepath.Join(dir, "schedule.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v, want ErrNotRegular (and no wait for a writer)", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "gone.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
}

// TestReadFileMax: a file one byte past its bound is refused with
// ErrTooLarge, in one line naming the file and the bound; one at the
// bound reads.
func TestReadFileMax(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		limit int64
		want  string
	}{
		{"case.txn", MaxPageText, "larger than the 2 MiB"},
		{"report.json", MaxPageJSON, "larger than the 8 MiB"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, make([]byte, c.limit), 0o644); err != nil {
			t.Fatal(err)
		}
		if data, err := ReadFileMax(path, c.limit); err != nil || int64(len(data)) != c.limit {
			t.Errorf("%s at the bound: %d bytes, %v", c.name, len(data), err)
		}
		if err := os.WriteFile(path, make([]byte, c.limit+1), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFileMax(path, c.limit)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s past the bound: %v, want ErrTooLarge", c.name, err)
		}
		if msg := err.Error(); msg != path+": "+c.want+" txlab reads of a bundle's file" {
			t.Errorf("%s past the bound: %q", c.name, msg)
		}
	}
}

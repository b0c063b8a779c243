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

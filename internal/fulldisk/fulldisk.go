// Package fulldisk gives tests a directory where writing fails as it does on
// a full disk, to check that txlab reports a failed write instead of leaving
// empty files behind.
package fulldisk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Dir returns a directory on a small tmpfs of its own (size bytes), which
// the test can fill with Fill after putting what it needs there; it is
// unmounted when the test ends. As root without the right to mount (a
// container), and with CI=true, the test fails; otherwise it is skipped.
// Not as root, the directory is an ordinary one and Fill makes it read-only:
// creating a file then fails with EACCES rather than ENOSPC, which is the
// same fault to txlab.
func Dir(t testing.TB, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return dir
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mounting a tmpfs to simulate a full disk: %v: %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs to simulate a full disk: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// ReadOnly returns a directory where creating a file fails: a read-only
// tmpfs as root (whom permissions do not stop), with Dir's rules when it
// cannot be mounted; otherwise a directory without write permission.
func ReadOnly(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "read-only")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mounting a read-only tmpfs: %v: %s", err, out)
		}
		t.Skipf("cannot mount a read-only tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill leaves no room in dir (a Dir): on the tmpfs a filler file takes every
// free block; elsewhere dir and the directories under it become read-only
// (and writable again when the test ends, so that it can be removed).
func Fill(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() == 0 {
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		block := make([]byte, 4096)
		for {
			if _, err := f.Write(block); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling %s: %v", dir, err)
				}
				break
			}
		}
		// The last partial block too: nothing, however small, fits.
		for {
			if _, err := f.Write(block[:1]); err != nil {
				return
			}
		}
	}
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range dirs {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
}

// Empty returns the files under dir (the filler aside) that are empty or are
// temporary files of an interrupted write: what a failed write must not
// leave behind.
func Empty(t testing.TB, dir string) []string {
	t.Helper()
	var bad []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "filler" {
			return nil
		}
		info, err := d.Info()
		if err == nil && info.Size() == 0 || filepath.Base(p)[0] == '.' {
			bad = append(bad, p)
		}
		return nil
	})
	return bad
}

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/txlab/txlab/internal/fulldisk"
)

func TestWriteFile(t *testing.T) {
	// The umask applies, as it does to os.WriteFile.
	defer syscall.Umask(syscall.Umask(0o027))
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	for _, s := range []string{"first\n", "second\n"} {
		if err := WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != s {
			t.Errorf("read back %q, want %q", got, s)
		}
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 (0644 under umask 027)", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want 1 (no temporary files)", len(entries))
	}
}

// TestFullDisk: a write that does not fit keeps the old content, leaves no
// temporary file and says which file failed.
func TestFullDisk(t *testing.T) {
	dir := fulldisk.Dir(t, 64<<10)
	path := filepath.Join(dir, "summary.json")
	if err := WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fulldisk.Fill(t, dir)
	err := WriteFile(path, []byte(strings.Repeat("new\n", 4096)), 0o644)
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("error %v: want one naming %s", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("summary.json holds %q after the failed write, want the old content", got)
	}
	if bad := fulldisk.Empty(t, dir); len(bad) > 0 {
		t.Errorf("left behind: %v", bad)
	}
	if err := WriteFile(filepath.Join(dir, "new.json"), []byte("x"), 0o644); err == nil {
		t.Error("a new file fits on a full disk")
	}
	if bad := fulldisk.Empty(t, dir); len(bad) > 0 {
		t.Errorf("left behind: %v", bad)
	}
}

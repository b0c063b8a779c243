package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
)

// TestWritable: a directory, or one not made yet below it, can take a
// file and none is left behind or made; a path under a file cannot.
func TestWritable(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "a", "b")
	if err := report.Writable(dir); err != nil {
		t.Error(err)
	}
	if err := report.Writable(fresh); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Writable left %v behind", entries)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if err := report.Writable(file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("a file: %v", err)
	}
	if err := report.Writable(filepath.Join(file, "x")); err == nil {
		t.Error("a path under a file was taken")
	}
}

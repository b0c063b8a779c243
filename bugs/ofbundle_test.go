//go:build unix

package bugs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOfBundleReadsPlainFiles: a bundle's report.json that is a link to
// another file is refused unread (red team 5: bugs test printed what the
// linked file held), and one that is a FIFO does not hang.
func TestOfBundleReadsPlainFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"finding": {"rule": "SECRET-CANARY-4242"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := t.TempDir()
	os.WriteFile(filepath.Join(link, "case.txn"), []byte("CREATE TABLE t (a INT);\n1> SELECT * FROM t;\n"), 0o644)
	if err := os.Symlink(secret, filepath.Join(link, "report.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := OfBundle(link); err == nil || strings.Contains(err.Error(), "SECRET-CANARY") || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("a linked report.json: %v", err)
	}
	fifo := t.TempDir()
	os.WriteFile(filepath.Join(fifo, "case.txn"), []byte("CREATE TABLE t (a INT);\n1> SELECT * FROM t;\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(fifo, "report.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OfBundle(fifo); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("a FIFO report.json: %v", err)
	}
}

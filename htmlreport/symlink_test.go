package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleSymlinksNotFollowed: a bundle may come from someone else. Its
// files made symbolic links to a file of the user's (a server's
// pg_hba.conf, a password file) were copied into the report page the
// user then opens and shares (red team 4); now the page holds none of it,
// and a report.json that is a link makes the bundle unreadable.
func TestBundleSymlinksNotFollowed(t *testing.T) {
	dir := bundles(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	const canary = "user-secret-canary-7f3a"
	if err := os.WriteFile(secret, []byte("-- "+canary+"\n"+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "0004-troc-incorrect-blocking-bug")
	for _, name := range []string{"case.txn", "report.txt", "graph.dot", "bug-report.txt", "upstream.spec", "upstream.test", "upstream.sql"} {
		os.Remove(filepath.Join(b, name))
		if err := os.Symlink(secret, filepath.Join(b, name)); err != nil {
			t.Fatal(err)
		}
	}
	page, err := WriteBundle(b)
	if err != nil {
		t.Fatalf("WriteBundle: %v", err)
	}
	if html := read(t, page); strings.Contains(html, canary) {
		t.Errorf("%s holds the linked file's text", page)
	}
	if _, err := Write(dir); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if html := read(t, page); strings.Contains(html, canary) {
		t.Errorf("%s holds the linked file's text after Write", page)
	}
	os.Remove(filepath.Join(b, "report.json"))
	if err := os.Symlink(secret, filepath.Join(b, "report.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteBundle(b); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("WriteBundle of a bundle whose report.json is a link: %v", err)
	}
}

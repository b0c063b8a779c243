package cachedir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	t.Setenv("TXLAB_CACHE", "rel/cache")
	d, err := Dir()
	wd, _ := os.Getwd()
	if err != nil || d != filepath.Join(wd, "rel/cache") {
		t.Errorf("Dir() with TXLAB_CACHE = %q, %v; want it made absolute", d, err)
	}
	t.Setenv("TXLAB_CACHE", "")
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	d, err = Dir()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 && d != filepath.Join(home, "cache", "txlab") {
		t.Errorf("Dir() = %q, want $XDG_CACHE_HOME/txlab", d)
	}
	// As root, a cache that "nobody" cannot reach is not used.
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	d, _ = Dir()
	if os.Geteuid() == 0 && d != "/var/cache/txlab" {
		t.Errorf("Dir() as root under a 0700 directory = %q, want /var/cache/txlab", d)
	}
}

// Package cachedir names the one directory txlab keeps what it installs in:
// PostgreSQL releases (localdb/pgrelease) and its build of TiDB (localdb).
package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir is $TXLAB_CACHE, else the user's cache directory + "/txlab". When the
// process runs as root, a PostgreSQL server runs as "nobody", which must reach
// the binaries: a root cache directory that others cannot traverse
// (/root/.cache) becomes /var/cache/txlab.
func Dir() (string, error) {
	if d := os.Getenv("TXLAB_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for txlab (set TXLAB_CACHE): %w", err)
	}
	d = filepath.Join(d, "txlab")
	if os.Geteuid() == 0 && !traversableByOthers(filepath.Dir(d)) {
		d = "/var/cache/txlab"
	}
	return d, nil
}

// traversableByOthers reports whether every existing directory from dir up
// to / lets other users search it.
func traversableByOthers(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil && fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

package localdb

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// binaries are the absolute paths of the programs one Kind needs.
type binaries struct {
	server string // mariadbd or postgres
	init   string // mariadb-install-db or initdb
	// basedir is MariaDB's installation prefix, for a build from Options.Bin
	// (mariadb-install-db finds its SQL scripts and the server through it).
	basedir string
	// pgMajor is PostgreSQL's major version (10, 18); initdb's flags differ.
	pgMajor int
}

// Debian locations, consulted when PATH does not have the programs (sbin is
// often missing from a non-root PATH, and PostgreSQL's bin dir never is on it).
var (
	debianMariaDBD   = []string{"/usr/sbin/mariadbd", "/usr/sbin/mysqld"}
	debianInstallDB  = []string{"/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"}
	debianPGGlob     = "/usr/lib/postgresql/*/bin"
	mariadbPackage   = "mariadb-server-core (apt-get install mariadb-server)"
	postgresPackages = "postgresql-NN (apt-get install postgresql)"
)

// findBinaries locates the programs for kind, in bin when it is set, or
// explains which one is missing and which Debian package provides it.
func findBinaries(kind Kind, bin string) (binaries, error) {
	if bin != "" && kind != TiDB {
		return findBuild(kind, bin)
	}
	switch kind {
	case MariaDB:
		srv := findProgram([]string{"mariadbd", "mysqld"}, debianMariaDBD)
		if srv == "" {
			return binaries{}, fmt.Errorf("localdb: mariadbd not found on PATH or in /usr/sbin; install Debian package %s", mariadbPackage)
		}
		inst := findProgram([]string{"mariadb-install-db", "mysql_install_db"}, debianInstallDB)
		if inst == "" {
			return binaries{}, fmt.Errorf("localdb: mariadb-install-db not found on PATH or in /usr/bin; install Debian package %s", mariadbPackage)
		}
		return binaries{server: srv, init: inst}, nil
	case Postgres:
		// postgres and initdb must come from the same installation: a data
		// directory is only readable by the major version that created it.
		if srv, err := exec.LookPath("postgres"); err == nil {
			if real, err := filepath.EvalSymlinks(srv); err == nil {
				if b, ok := pgDir(filepath.Dir(real)); ok {
					return withPGMajor(b)
				}
			}
		}
		for _, dir := range pgDebianDirs() {
			if b, ok := pgDir(dir); ok {
				return withPGMajor(b)
			}
		}
		return binaries{}, fmt.Errorf("localdb: postgres and initdb not found on PATH or in %s; install Debian package %s", debianPGGlob, postgresPackages)
	case TiDB:
		return tidbBinaries(bin) // bin, or txlab's build (tidb.go)
	}
	return binaries{}, fmt.Errorf("localdb: unknown kind %q (want %q or %q)", kind, MariaDB, Postgres)
}

// findBuild locates kind's programs in a directory of binaries the user named
// (--db postgres@/path, mariadb@/path): the directory itself or, for an
// installation prefix or a build tree, its bin/, sbin/, scripts/ or sql/.
func findBuild(kind Kind, bin string) (binaries, error) {
	dir, err := filepath.Abs(bin)
	if err != nil {
		return binaries{}, fmt.Errorf("localdb: %s: %w", bin, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return binaries{}, fmt.Errorf("localdb: %s is not a directory of %s binaries", bin, kind)
	}
	look := func(names []string, subdirs ...string) string {
		for _, sub := range append([]string{""}, subdirs...) {
			for _, n := range names {
				if p := filepath.Join(dir, sub, n); isExecutable(p) {
					return p
				}
			}
		}
		return ""
	}
	switch kind {
	case Postgres:
		for _, sub := range []string{"", "bin"} {
			if b, ok := pgDir(filepath.Join(dir, sub)); ok {
				return withPGMajor(b)
			}
		}
		return binaries{}, fmt.Errorf("localdb: no postgres and initdb in %s or %s/bin", bin, bin)
	case MariaDB:
		srv := look([]string{"mariadbd", "mysqld"}, "sbin", "bin", "sql", "libexec")
		inst := look([]string{"mariadb-install-db", "mysql_install_db"}, "bin", "scripts")
		if srv == "" || inst == "" {
			return binaries{}, fmt.Errorf("localdb: no mariadbd and mariadb-install-db in %s (nor in its bin/, sbin/, scripts/ or sql/)", bin)
		}
		base := dir
		if d := filepath.Base(filepath.Dir(srv)); d == "bin" || d == "sbin" || d == "sql" || d == "libexec" {
			base = filepath.Dir(filepath.Dir(srv))
		}
		return binaries{server: srv, init: inst, basedir: base}, nil
	}
	return binaries{}, fmt.Errorf("localdb: unknown kind %q", kind)
}

// withPGMajor reads the release's major version from initdb --version
// ("initdb (PostgreSQL) 10.23"). An initdb that does not say leaves it 0,
// read as a current release: initdb itself then names what it lacks.
func withPGMajor(b binaries) (binaries, error) {
	out, err := exec.Command(b.init, "--version").Output()
	if f := strings.Fields(string(out)); err == nil && len(f) > 0 {
		major, _, _ := strings.Cut(f[len(f)-1], ".")
		b.pgMajor, _ = strconv.Atoi(major)
	}
	return b, nil
}

// findProgram returns the first of names found on PATH, else the first
// existing executable among fallbacks, else "".
func findProgram(names, fallbacks []string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	for _, p := range fallbacks {
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

// pgDir reports the postgres/initdb pair in dir, if both are there.
func pgDir(dir string) (binaries, bool) {
	b := binaries{server: filepath.Join(dir, "postgres"), init: filepath.Join(dir, "initdb")}
	return b, isExecutable(b.server) && isExecutable(b.init)
}

// pgDebianDirs lists /usr/lib/postgresql/N/bin, highest major version first.
func pgDebianDirs() []string {
	dirs, _ := filepath.Glob(debianPGGlob)
	sort.SliceStable(dirs, func(i, j int) bool {
		return pgVersion(dirs[i]) > pgVersion(dirs[j])
	})
	return dirs
}

// pgVersion extracts N from /usr/lib/postgresql/N/bin; non-numeric sorts last.
func pgVersion(binDir string) float64 {
	v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	if err != nil {
		return -1
	}
	return v
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

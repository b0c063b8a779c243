package localdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// This file holds everything that differs between MariaDB and PostgreSQL:
// command lines, settings syntax and the shutdown signal.

// mariadbEngineArgs are given to both mariadb-install-db (which passes them to
// its bootstrap server) and mariadbd, so the redo log is created at its final
// size instead of being resized on first start.
var mariadbEngineArgs = []string{
	"--innodb-buffer-pool-size=32M",
	"--innodb-log-file-size=16M",
	// Many servers on one machine can exhaust the kernel's aio contexts.
	"--innodb-use-native-aio=0",
}

// mariadbInitTimeSettings must also reach mariadb-install-db: they are fixed
// when the data directory is created.
var mariadbInitTimeSettings = map[string]bool{
	"innodb_page_size":        true,
	"innodb_data_file_path":   true,
	"innodb_undo_tablespaces": true,
	"lower_case_table_names":  true,
}

// mariadbInitSettings picks the user settings mariadb-install-db must see.
func mariadbInitSettings(extra []string) []string {
	var out []string
	for _, a := range extra {
		k, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if mariadbInitTimeSettings[strings.ReplaceAll(k, "-", "_")] {
			out = append(out, a)
		}
	}
	return out
}

// initArgs are the arguments of mariadb-install-db / initdb creating dataDir;
// tmpDir takes MariaDB's temporary files.
func (s *Server) initArgs(dataDir, tmpDir string) []string {
	switch s.kind {
	case MariaDB:
		args := []string{
			"--no-defaults", // must come first
			"--auth-root-authentication-method=normal",
			"--skip-test-db",
			"--skip-name-resolve",
			"--datadir=" + dataDir,
			"--tmpdir=" + tmpDir,
		}
		if os.Geteuid() == 0 {
			args = append(args, "--user=root")
		}
		if s.bins.basedir != "" {
			args = append(args, "--basedir="+s.bins.basedir)
		}
		args = append(args, mariadbEngineArgs...)
		return append(args, mariadbInitSettings(s.extra)...)
	default:
		args := []string{
			"-D", dataDir,
			"-A", "trust",
			"-U", pgSuperuser,
			"--no-sync",
			// C collation: byte order, identical everywhere, and fastest.
			"-E", "UTF8", "--locale=C",
		}
		if s.bins.pgMajor == 0 || s.bins.pgMajor >= 11 {
			// 1 MB WAL segments instead of 16: a smaller directory to create
			// and to copy from a template (initdb has the flag since 11).
			args = append(args, "--wal-segsize=1")
		}
		return args
	}
}

func (s *Server) serverArgs() []string {
	switch s.kind {
	case TiDB:
		return s.tidbServerArgs()
	case MariaDB:
		args := []string{
			"--no-defaults", // must come first
			"--datadir=" + s.dataDir(),
			"--socket=" + filepath.Join(s.dir, "mysqld.sock"),
			fmt.Sprintf("--port=%d", s.port),
			"--pid-file=" + filepath.Join(s.dir, "mariadbd.pid"),
			"--log-error=" + filepath.Join(s.dir, serverLogFile),
			"--tmpdir=" + s.dir,
			"--bind-address=127.0.0.1",
			"--skip-name-resolve",
			"--skip-log-bin",
		}
		if s.bins.basedir != "" {
			args = append(args, "--basedir="+s.bins.basedir)
		}
		args = append(args,
			// Durability only; isolation is unaffected.
			"--innodb-flush-log-at-trx-commit=0",
			"--innodb-doublewrite=0",
			"--innodb-fast-shutdown=3", // the data is thrown away after shutdown
			"--innodb-buffer-pool-load-at-startup=0",
			"--innodb-buffer-pool-dump-at-shutdown=0",
			"--sync-frm=0",
			// What current distributions configure; the Go driver talks utf8mb4.
			"--character-set-server=utf8mb4",
			"--collation-server=utf8mb4_general_ci",
		)
		if os.Geteuid() == 0 {
			args = append(args, "--user=root")
		}
		args = append(args, mariadbEngineArgs...)
		return append(args, s.extra...)
	default:
		args := []string{
			"-D", s.dataDir(),
			"-p", fmt.Sprint(s.port),
			"-k", s.dir,
			"-c", "listen_addresses=127.0.0.1",
			// Durability only; isolation is unaffected.
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
			// The default 1 s would dominate every deadlock test case.
			"-c", "deadlock_timeout=100ms",
			"-c", "logging_collector=off",
		}
		return append(args, s.extra...)
	}
}

// settingArgs turns user settings into command-line arguments for kind.
func settingArgs(kind Kind, settings []string) ([]string, error) {
	if kind == TiDB {
		return tidbSettingArgs(settings) // name=value, applied by tidb.go
	}
	var args []string
	for _, raw := range settings {
		kv := strings.TrimSpace(raw)
		k, v, hasValue := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		switch kind {
		case MariaDB:
			k = strings.TrimLeft(k, "-")
			if k == "" || strings.ContainsAny(k, " \t") {
				return nil, fmt.Errorf("localdb: bad MariaDB setting %q (want key=value)", raw)
			}
			if !hasValue {
				args = append(args, "--"+k) // e.g. skip-grant-tables
			} else {
				args = append(args, "--"+k+"="+strings.TrimSpace(v))
			}
		case Postgres:
			if k == "" || !hasValue || strings.ContainsAny(k, " \t") {
				return nil, fmt.Errorf("localdb: bad PostgreSQL setting %q (want key=value)", raw)
			}
			args = append(args, "-c", k+"="+strings.TrimSpace(v))
		default:
			return nil, fmt.Errorf("localdb: unknown kind %q", kind)
		}
	}
	return args, nil
}

// shutdownSignal: PostgreSQL's SIGTERM is "smart" shutdown, which waits for
// every client to disconnect; SIGINT is "fast" (abort transactions, shut down
// cleanly). mariadbd shuts down on SIGTERM.
func shutdownSignal(kind Kind) os.Signal {
	if kind == Postgres {
		return syscall.SIGINT
	}
	return syscall.SIGTERM
}

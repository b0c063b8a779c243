// Package localdb starts throwaway MariaDB and PostgreSQL servers from the
// binaries installed on the machine (the Debian packages mariadb-server-core and
// postgresql-NN), for tests, for the --db mariadb / --db postgres targets and for
// the `txlab server` command.
//
// Each server gets a fresh temporary directory (prefix "txlab-localdb-") holding
// its data directory, unix socket, logs and an owner.pid file, listens on a free
// loopback port only, and is tuned for speed with settings that do not change
// isolation semantics (no fsync, no doublewrite, small buffers). Stop shuts the
// server down and deletes the directory.
//
// Nothing is left behind when the owning process dies: the server is started
// with a parent-death signal (SIGKILL) and its own process group, and every
// Start sweeps stale txlab-localdb-* directories whose owner process is gone,
// killing a server still running there.
//
// Because servers run in their own process group, Ctrl-C in a terminal does not
// reach them; the caller decides when they stop. A command should do
//
//	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer cancel()
//	srv, err := localdb.Start(ctx, localdb.MariaDB, localdb.Options{})
//	if err != nil { ... }
//	defer srv.Stop()
//	... work with srv.DSN() until ctx is done ...
//
// so that an interrupt cancels the work, the deferred Stop runs and the
// directory is removed. The context passed to Start bounds only the start-up
// (initialisation and readiness); the server then lives until Stop.
//
// Initialising the data directory is most of the start-up time; a process
// that starts many servers (a test package, a campaign) can call
// CacheTemplates to copy a cached initialised directory instead.
//
// Tests use localdbtest.Server, which skips when the binaries are missing
// (fails instead when CI=true, the rule Unavailable holds) and registers Stop
// with t.Cleanup.
//
// TiDB (Kind TiDB) is not installed from Debian: txlab builds tidb-server
// v8.5.6 once from the Go module in the repository's tidb/ directory into its
// cache (InstallTiDB; about 10 minutes on 2 cores, and Go must be on PATH) and
// runs it on its embedded in-memory storage, unistore; Options.Bin runs a
// user's own tidb-server instead. Its settings are system variables, set with
// SET GLOBAL before Start returns, or configuration items (a name with "." or
// "-"), written to its configuration file. Tests never build it: for them
// (Unavailable) TiDB is missing until `txlab install tidb` has run.
//
// When the process runs as root, MariaDB runs with --user=root, while
// PostgreSQL, which refuses to run as root, runs as the user "nobody".
//
// The package is Linux-only in practice (Debian binary locations, /proc,
// Pdeathsig); on other systems Available reports that it is unsupported.
package localdb

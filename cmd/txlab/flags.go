package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
)

// globalFlags are the flags every command shares.
type globalFlags struct {
	db             string
	schema         string
	json           bool
	verbose        bool
	settings       []string
	blockTimeout   time.Duration
	hangTimeout    time.Duration
	connectTimeout time.Duration
	trustCase      bool
	maxRows        int64
	maxResultBytes target.ByteSize
}

func (g *globalFlags) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&g.db, "db", "sqlite", "target database: sqlite, sqlite:PATH, duckdb, duckdb:PATH, mariadb, postgres or a URL\n(e.g. --db mysql://root:pw@127.0.0.1:3306/ or --db postgres://me@localhost/postgres)")
	f.StringVar(&g.schema, "schema", "txlab", "txlab's own database/schema on the target; txlab creates and drops tables only there and in\nits siblings SCHEMA_wN (--workers), SCHEMA_isorel and SCHEMA_wN_isorel (IsoRel's instrumented runs);\nsee README (e.g. --schema txlab_ci)")
	f.BoolVar(&g.json, "json", false, "print machine-readable JSON on stdout (e.g. txlab run --json case.txn | jq .events)")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "log server start-up and notable events on stderr (e.g. -v)")
	f.StringArrayVar(&g.settings, "set", nil, "server setting for a throwaway mariadb/postgres, repeatable\n(e.g. --set innodb_snapshot_isolation=ON --set max_connections=200)")
	f.DurationVar(&g.blockTimeout, "block-timeout", time.Second, "fallback: a statement still running this long, while the server does not report\na lock wait, counts as blocked (e.g. --block-timeout 500ms)")
	f.DurationVar(&g.connectTimeout, "connect-timeout", connect.DefaultConnectTimeout, "give up connecting to a server (--db URL) that has not answered after this long\n(e.g. --connect-timeout 30s)")
	f.BoolVar(&g.trustCase, "trust-case", false, "run a case's statements of kinds txlab's scope check does not know (your own case file);\nnames outside txlab's database, server administration, files and dynamic SQL stay refused (e.g. --trust-case)")
	f.DurationVar(&g.hangTimeout, "hang-timeout", 30*time.Second, "a case that has not finished after this long is reported as a hang (e.g. --hang-timeout 10s)")
	g.maxResultBytes = target.ByteSize(target.DefaultLimits.Bytes)
	f.Int64Var(&g.maxRows, "max-rows", target.DefaultLimits.Rows, "the most rows txlab keeps of one statement's result and of the final state; the rest is read and\ncounted, and the case is not judged (exit 2 for run) (e.g. --max-rows 1000000)")
	f.Var(&g.maxResultBytes, "max-result-bytes", "the most bytes txlab keeps of one statement's result, of one case's results together and of\nthe final state; the rest is read and counted, and the case is not judged (e.g. --max-result-bytes 256MiB)")
}

func (g *globalFlags) log(cmd *cobra.Command) io.Writer {
	if g.verbose {
		return cmd.ErrOrStderr()
	}
	return nil
}

// open connects to the target named by --db, on a bench of its own (see
// executor.Bench).
func (g *globalFlags) open(cmd *cobra.Command) (target.Target, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	t, err := connect.Open(cmd.Context(), g.db, g.connectOptions(cmd, g.schema))
	if err != nil {
		return nil, exitcode.Fault(err)
	}
	return executor.NewBench(t), nil
}

// connectOptions are the connect options for schema; settings apply to a
// server txlab starts, so only to the first worker's.
func (g *globalFlags) connectOptions(cmd *cobra.Command, schema string) connect.Options {
	o := connect.Options{Schema: schema, Log: g.log(cmd), Progress: cmd.ErrOrStderr(), ConnectTimeout: g.connectTimeout}
	if schema == g.schema {
		o.Settings = g.settings
	}
	return o
}

// validate rejects out-of-range global flags.
func (g *globalFlags) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"block-timeout", g.blockTimeout}, {"hang-timeout", g.hangTimeout}, {"connect-timeout", g.connectTimeout}} {
		if d.v <= 0 {
			return usageErr(fmt.Errorf("--%s %v: want a positive duration (e.g. 10s)", d.name, d.v))
		}
	}
	for _, kv := range g.settings {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return usageErr(fmt.Errorf("--set %q: want name=value (e.g. --set innodb_snapshot_isolation=ON)", kv))
		}
	}
	if g.maxRows <= 0 {
		return usageErr(fmt.Errorf("--max-rows %d: want a positive number of rows (e.g. --max-rows 100000)", g.maxRows))
	}
	// Before any target opens: every result read from now on keeps to them.
	target.SetLimits(target.Limits{Rows: g.maxRows, Bytes: int64(g.maxResultBytes)})
	return nil
}

func (g *globalFlags) execOptions(level target.Level) executor.Options {
	return executor.Options{Isolation: level, BlockTimeout: g.blockTimeout, HangTimeout: g.hangTimeout, TrustCase: g.trustCase}
}

// openWorkers opens n targets for parallel workers, each in a database of
// its own and on a bench of its own (connect.OpenWorkers): worker 1 uses
// --db as given, the others its server with schema SCHEMA_wN.
func (g *globalFlags) openWorkers(cmd *cobra.Command, n int, until time.Time) ([]target.Target, error) {
	first, err := g.open(cmd)
	if err != nil {
		return nil, err
	}
	more, err := connect.OpenWorkers(cmd.Context(), first, g.db, n, until, func(w int) connect.Options {
		return g.connectOptions(cmd, fmt.Sprintf("%s_w%d", g.schema, w))
	}, g.log(cmd))
	if err != nil {
		first.Close()
		return nil, exitcode.Fault(err)
	}
	targets := []target.Target{first}
	for _, t := range more {
		targets = append(targets, executor.NewBench(t))
	}
	return targets, nil
}

// parseLevel reads the one-level --isolation of run and reduce ("" when
// it is not given) before any server starts.
func parseLevel(s string) (target.Level, error) {
	if s == "" {
		return "", nil
	}
	l, err := target.ParseLevel(s)
	if err != nil {
		return "", usageErr(err)
	}
	return l, nil
}

// openAt opens the target and refuses a level it does not have ("" passes),
// closing it again then.
func (g *globalFlags) openAt(cmd *cobra.Command, l target.Level) (target.Target, error) {
	t, err := g.open(cmd)
	if err != nil {
		return nil, err
	}
	if err := checkLevelOn(t, l); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// checkLevelOn refuses a level target t does not have ("" passes).
func checkLevelOn(t target.Target, l target.Level) error {
	if l == "" {
		return nil
	}
	if err := target.CheckLevel(t.Info().DBMS, l, t.Levels()); err != nil {
		return usageErr(err)
	}
	return nil
}

// usageErr marks an error as a usage error (exit 2).
func usageErr(err error) error { return exitcode.Fault(err) }

package localdb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTiDBModuleCopy: the go.mod and go.sum txlab builds TiDB from are the
// module in tidb/ (go generate ./localdb copies them).
func TestTiDBModuleCopy(t *testing.T) {
	for name, embedded := range map[string]string{"go.mod": tidbGoMod, "go.sum": tidbGoSum} {
		b, err := os.ReadFile(filepath.Join("..", "tidb", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != embedded {
			t.Errorf("localdb/tidbmodule/%s.txt differs from tidb/%s: run go generate ./localdb", name, name)
		}
	}
	if !strings.Contains(tidbGoMod, "github.com/pingcap/tidb v1.1.0-beta.0.20260413061245-"+tidbCommit) {
		t.Errorf("tidb/go.mod does not require TiDB at commit %s (v%s)", tidbCommit, TiDBVersion)
	}
}

func TestCheckTiDBVersion(t *testing.T) {
	for _, v := range []string{"", "8", "8.5", "8.5.6", "v8.5.6"} {
		if err := CheckTiDBVersion(v); err != nil {
			t.Errorf("CheckTiDBVersion(%q) = %v", v, err)
		}
	}
	for _, v := range []string{"8.5.5", "7", "8.4", "8.5.60", "nightly"} {
		err := CheckTiDBVersion(v)
		if err == nil || !strings.Contains(err.Error(), TiDBVersion) {
			t.Errorf("CheckTiDBVersion(%q) = %v, want an error naming %s", v, err, TiDBVersion)
		}
	}
}

func TestTiDBSettings(t *testing.T) {
	extra, err := tidbSettingArgs([]string{" tidb_txn_mode = optimistic", "performance.txn-total-size-limit=1073741824",
		"innodb_lock_wait_timeout=5", "log.level=warn", "pessimistic-txn.deadlock-history-capacity=20", "lower-case-table-names=2"})
	if err != nil {
		t.Fatal(err)
	}
	vars, values, items := tidbSplitSettings(extra)
	if strings.Join(vars, ",") != "tidb_txn_mode,innodb_lock_wait_timeout" || strings.Join(values, ",") != "optimistic,5" {
		t.Errorf("system variables %q = %q", vars, values)
	}
	want := "lower-case-table-names = 2\n\n[log]\nlevel = \"warn\"\n\n[performance]\ntxn-total-size-limit = 1073741824\n\n[pessimistic-txn]\ndeadlock-history-capacity = 20\n"
	if got := tidbConfig(items); got != want {
		t.Errorf("config:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{"tidb_txn_mode", "=1", "a b=1", "x.=1", "a..b=1", "1x=2"} {
		if _, err := tidbSettingArgs([]string{bad}); err == nil {
			t.Errorf("setting %q accepted", bad)
		}
	}
}

// TestTiDBBinFlag: Options.Bin names a tidb-server or a directory holding
// one; anything else is refused with the path in the message.
func TestTiDBBinFlag(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", tidbServerName)
	os.MkdirAll(filepath.Dir(bin), 0o755)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{bin, filepath.Dir(bin), dir} {
		b, err := tidbBinaries(arg)
		if err != nil || b.server != bin {
			t.Errorf("tidbBinaries(%s) = %v, %v; want %s", arg, b.server, err, bin)
		}
	}
	if _, err := tidbBinaries(filepath.Join(dir, "nothing")); err == nil || !strings.Contains(err.Error(), "nothing") {
		t.Errorf("tidbBinaries of a missing path: %v", err)
	}
}

// TestTiDBNotBuilt: with an empty cache and no go command, TiDB is
// unavailable, and the reason names the command that builds it.
func TestTiDBNotBuilt(t *testing.T) {
	t.Setenv("TXLAB_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	err := Available(TiDB)
	if err == nil || !strings.Contains(err.Error(), "go command") {
		t.Errorf("Available(TiDB) without a build or Go = %v", err)
	}
	_, err = tidbBuilt()
	if err == nil || !strings.Contains(err.Error(), "txlab install tidb") {
		t.Errorf("tidbBuilt with an empty cache = %v", err)
	}
	if _, err := Start(t.Context(), TiDB, Options{Version: "7.5"}); err == nil || !strings.Contains(err.Error(), TiDBVersion) {
		t.Errorf("Start of TiDB 7.5 = %v, want an error naming %s", err, TiDBVersion)
	}
}

// TestTiDB starts txlab's build of TiDB with a system variable and a
// configuration item set, and checks both, the loopback address and that
// Stop leaves nothing behind.
func TestTiDB(t *testing.T) {
	s := forTest(t, TiDB, "tidb_txn_mode=optimistic", "performance.txn-total-size-limit=1073741824")
	if v := query(t, s, "SELECT VERSION()"); !strings.Contains(v, "TiDB-v"+TiDBVersion) {
		t.Errorf("VERSION() = %q, want TiDB v%s", v, TiDBVersion)
	}
	if v := query(t, s, "SELECT @@tidb_txn_mode"); v != "optimistic" {
		t.Errorf("tidb_txn_mode = %q, want the setting's optimistic", v)
	}
	if v := query(t, s, "SELECT `Value` FROM information_schema.CLUSTER_CONFIG WHERE `TYPE` = 'tidb' AND `KEY` = 'performance.txn-total-size-limit'"); v != "1073741824" {
		t.Errorf("performance.txn-total-size-limit = %q, want the setting's 1073741824", v)
	}
	if v := query(t, s, "SELECT `Value` FROM information_schema.CLUSTER_CONFIG WHERE `TYPE` = 'tidb' AND `KEY` = 'log.level'"); v != "warn" {
		t.Errorf("log.level = %q, want localdb's warn", v)
	}
	if !strings.HasPrefix(s.DSN(), "tidb://root@127.0.0.1:") {
		t.Errorf("DSN = %q", s.DSN())
	}
	// A table of its own: DDL and DML work.
	db, err := sql.Open("mysql", s.DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)", "INSERT INTO d.t VALUES (1, 0)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dir := s.Dir()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there after Stop: %v", dir, err)
	}
}

// TestTiDBLogLevel: a user's log.level replaces localdb's.
func TestTiDBLogLevel(t *testing.T) {
	s := forTest(t, TiDB, "log.level=info")
	if v := query(t, s, "SELECT `Value` FROM information_schema.CLUSTER_CONFIG WHERE `TYPE` = 'tidb' AND `KEY` = 'log.level'"); v != "info" {
		t.Errorf("log.level = %q, want the setting's info", v)
	}
}

// TestTiDBBadSetting: an unknown system variable or configuration item
// fails the start, naming it.
func TestTiDBBadSetting(t *testing.T) {
	require(t, TiDB)
	for _, set := range []string{"tidb_no_such_variable=1", "performance.no-such-item=1"} {
		_, err := Start(t.Context(), TiDB, Options{Settings: []string{set}, Log: t.Output()})
		if err == nil || !strings.Contains(err.Error(), strings.Split(set, "=")[0]) {
			t.Errorf("Start with %s = %v, want a failure naming it", set, err)
		}
		t.Logf("%s: %v", set, err)
	}
}

// TestLockFile: a second holder waits (told once) until the first lets go,
// and gives up when its context ends.
func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	told := 0
	if _, err := lockFile(ctx, path, func() { told++ }); err == nil || told != 1 {
		t.Fatalf("second lock while held = %v (told %d times), want a timeout after one notice", err, told)
	}
	got := make(chan error, 1)
	go func() {
		u, err := lockFile(t.Context(), path, nil)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting locker did not get the lock after it was released")
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/localdb"
)

// TestInstallList: install --list shows txlab's build of TiDB beside the
// PostgreSQL releases in the cache (it left TiDB out).
func TestInstallList(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("TXLAB_CACHE", cache)
	exe := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pg := filepath.Join(cache, "postgres", "18.4.0-beta.17")
	exe(filepath.Join(pg, "bin", "postgres"))
	exe(filepath.Join(pg, "bin", "initdb"))
	code, stdout, stderr := txlab(t, "install", "--list")
	if code != 0 || stdout != "postgres@18.4.0-beta.17\t18.4\t"+pg+"\n" {
		t.Fatalf("install --list without TiDB: exit %d, %q, %s", code, stdout, stderr)
	}
	tidb, err := localdb.TiDBBuildDir()
	if err != nil {
		t.Fatal(err)
	}
	exe(filepath.Join(tidb, "tidb-server"))
	code, stdout, stderr = txlab(t, "install", "--list")
	if code != 0 || !strings.HasSuffix(stdout, "\ntidb\t"+localdb.TiDBVersion+"\t"+tidb+"\n") {
		t.Errorf("install --list with TiDB built: exit %d, %q, %s", code, stdout, stderr)
	}
}

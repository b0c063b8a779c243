package semantics_test

import (
	"context"
	"slices"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
)

// TestServerSettings reads innodb_snapshot_isolation from a real MariaDB
// started with it ON: repeatable read then forbids lost updates, and a
// --set override still wins over what the server says.
func TestServerSettings(t *testing.T) {
	ctx := context.Background()
	srv := localdbtest.Server(t, localdb.MariaDB, "innodb_snapshot_isolation=ON")
	tg, err := connect.Open(ctx, srv.DSN(), connect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	forbidsLostUpdate := func(overrides ...string) bool {
		t.Helper()
		set, err := semantics.ServerSettings(ctx, tg, overrides)
		if err != nil {
			t.Fatal(err)
		}
		p := semantics.Lookup(tg.Info().DBMS, target.RepeatableRead, set)
		return slices.Contains(p.Forbidden, "lost-update")
	}
	if !forbidsLostUpdate() {
		t.Error("server with innodb_snapshot_isolation=ON: repeatable read should forbid lost-update")
	}
	if forbidsLostUpdate("innodb_snapshot_isolation=0") {
		t.Error("override innodb_snapshot_isolation=0 should win over the server's ON")
	}
	if _, err := semantics.ServerSettings(ctx, tg, []string{"no-equals-sign"}); err == nil {
		t.Error("a malformed override should be an error")
	}
}

func TestSettingNames(t *testing.T) {
	for _, name := range []string{"innodb_snapshot_isolation", "tidb_txn_mode"} {
		if !slices.Contains(semantics.SettingNames(), name) {
			t.Errorf("SettingNames() = %v, want %s among them", semantics.SettingNames(), name)
		}
	}
}

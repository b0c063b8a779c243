package semantics_test

import (
	"context"
	"slices"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
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

// TestServerSettingsTiDB reads TiDB's transaction mode, clustering
// default and storage from a real TiDB started with
// tidb_txn_mode=optimistic: its transactions follow the optimistic rules,
// the unistore reverse-scan defect applies, and a --set override wins.
func TestServerSettingsTiDB(t *testing.T) {
	ctx := context.Background()
	srv := localdbtest.Server(t, localdb.TiDB, "tidb_txn_mode=optimistic")
	tg, err := connect.Open(ctx, srv.DSN(), connect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	set, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := model.Lookup(tg.Info().DBMS, target.RepeatableRead, set)
	if r.Mode != model.TiDBOptimistic || r.CommitConflict == "" || r.ReverseScan == nil || !r.ClusteredKey {
		t.Errorf("rules from %v: mode %q, commit conflict %q, reverse scan %v, clustered %v; want optimistic, a conflict, unistore's defect, clustered",
			set["tidb_txn_mode"], r.Mode, r.CommitConflict, r.ReverseScan != nil, r.ClusteredKey)
	}
	if !slices.Contains(semantics.Lookup("tidb", target.ReadCommitted, set).Forbidden, semantics.LostUpdate) {
		t.Error("optimistic read committed should forbid lost-update (it is snapshot isolation)")
	}
	set, err = semantics.ServerSettings(ctx, tg, []string{"tidb_txn_mode=pessimistic"})
	if err != nil {
		t.Fatal(err)
	}
	if r := model.Lookup("tidb", target.RepeatableRead, set); r.Mode != model.TiDBPessimistic {
		t.Errorf("override tidb_txn_mode=pessimistic: mode %q", r.Mode)
	}
}

func TestSettingNames(t *testing.T) {
	for _, name := range []string{"innodb_snapshot_isolation", "tidb_txn_mode"} {
		if !slices.Contains(semantics.SettingNames(), name) {
			t.Errorf("SettingNames() = %v, want %s among them", semantics.SettingNames(), name)
		}
	}
}

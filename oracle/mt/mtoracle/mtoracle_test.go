package mtoracle_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/oracle/mt"
	"github.com/txlab/txlab/oracle/mt/mtoracle"
	"github.com/txlab/txlab/oracle/mt/workload"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/verdict"
)

// run runs rounds of the MT oracle on tg at level and returns the
// findings and the bundle writer.
func run(t *testing.T, tg target.Target, level target.Level, model semantics.Model, rounds, txns int) ([]verdict.Finding, *report.Writer) {
	t.Helper()
	ctx := context.Background()
	settings, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &report.Writer{Dir: t.TempDir(), KeepAllowed: true} // allowed findings' bundles are checked too
	cfg := workload.DefaultConfig()
	cfg.Txns = txns
	o := &mtoracle.Oracle{Workload: cfg, Model: model, Settings: settings}
	s, err := fuzz.Run(ctx, []target.Target{tg}, fuzz.Options{Seed: 5, Cases: rounds, Levels: []target.Level{level}, Workload: o, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if s.Transactions < rounds*txns/2 {
		t.Fatalf("only %d transactions recorded: %+v", s.Transactions, s)
	}
	return s.Findings, w
}

func find(fs []verdict.Finding, kind string) *verdict.Finding {
	for i := range fs {
		if fs[i].Kind == kind {
			return &fs[i]
		}
	}
	return nil
}

// TestMariaDBLostUpdate: default repeatable read loses updates, which
// MariaDB documents (allowed); the bundle's history reproduces the anomaly
// offline. With innodb_snapshot_isolation=ON there is none.
func TestMariaDBLostUpdate(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	fs, _ := run(t, tg, target.RepeatableRead, "", 1, 3000)
	f := find(fs, "lost-update")
	if f == nil {
		t.Fatalf("no lost-update at MariaDB repeatable read; findings %+v", fs)
	}
	if f.Verdict != verdict.Allowed || f.Rule != "mariadb-repeatable-read-permits-lost-update" {
		t.Errorf("lost-update judged %s [%s], want allowed by mariadb-repeatable-read-permits-lost-update", f.Verdict, f.Rule)
	}
	if verdict.CountBugs(fs) != 0 {
		t.Errorf("bugs at MariaDB repeatable read: %+v", fs)
	}
	exit, text, _ := mt.CheckFile(filepath.Join(f.Dir, "history.jsonl"), "snapshot")
	if exit != 1 {
		t.Errorf("txlab check on the bundle's history: exit %d, want 1 (violated)\n%s", exit, text)
	}
	for _, name := range []string{"report.txt", "report.json", "excerpt.jsonl"} {
		if _, err := os.Stat(filepath.Join(f.Dir, name)); err != nil {
			t.Error(err)
		}
	}

	srv := localdbtest.Server(t, localdb.MariaDB, "innodb_snapshot_isolation=ON")
	si, err := connect.Open(context.Background(), srv.DSN(), connect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer si.Close()
	// MDEV-39263 (fixed in 2026, after Debian's 10.11.14): under contention
	// an UPDATE whose lock holder commits during the lock wait misses error
	// 1020, so a lost update can still happen, rarely (seen once in CI).
	// It is a real bug: a lost-update finding must say bug; anything else
	// is not expected.
	fs, _ = run(t, si, target.RepeatableRead, "", 1, 3000)
	for _, f := range fs {
		if f.Kind != "lost-update" || f.Verdict != verdict.Bug {
			t.Errorf("innodb_snapshot_isolation=ON: finding %+v, want none (or a lost-update bug, MDEV-39263)", f)
		}
	}
}

// TestPostgres: serializable gives no finding; read committed checked
// against --model serializable is a bug.
func TestPostgres(t *testing.T) {
	tg := connecttest.Target(t, "postgres")
	if fs, _ := run(t, tg, target.Serializable, "", 1, 2000); len(fs) != 0 {
		t.Errorf("postgres serializable: findings %+v, want none", fs)
	}
	fs, _ := run(t, tg, target.ReadCommitted, semantics.Model(target.Serializable), 1, 2000)
	if verdict.CountBugs(fs) == 0 {
		t.Fatalf("postgres read committed as serializable: no bug; findings %+v", fs)
	}
	if !strings.HasPrefix(fs[0].Rule, "model-serializable-forbids-") {
		t.Errorf("rule %q, want model-serializable-forbids-…", fs[0].Rule)
	}
	// Without --model, read committed promises only G0/G1: no finding.
	if fs, _ := run(t, tg, target.ReadCommitted, "", 1, 2000); len(fs) != 0 {
		t.Errorf("postgres read committed, documented model: findings %+v, want none", fs)
	}
}

func TestSQLite(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	if fs, _ := run(t, tg, "", "", 2, 1000); len(fs) != 0 {
		t.Errorf("sqlite: findings %+v, want none", fs)
	}
}

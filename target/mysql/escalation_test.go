package mysql

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/target/targettest"
)

// TestAdminReadsNothingACaseMade: a case's SQL SECURITY INVOKER view runs
// with the rights of whoever reads it. txlab's final-state dump reads it as
// the case account, so LOAD_FILE (the FILE privilege) reads nothing and
// information_schema.PROCESSLIST (PROCESS) shows no other account's
// running statement, while the administrator reading the same view gets
// both.
func TestAdminReadsNothingACaseMade(t *testing.T) {
	root := rootDB(t)
	ctx := targettest.Ctx(t)
	tg := open(t, "txlab_esc")
	if err := tg.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE SQL SECURITY INVOKER VIEW v AS SELECT LOAD_FILE('/etc/hostname') AS f, "+
		"(SELECT GROUP_CONCAT(INFO) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%user-secret-literal%' AND INFO NOT LIKE '%PROCESSLIST%') AS q")
	if err := tg.Adopt(ctx, []string{"v"}); err != nil {
		t.Fatal(err)
	}
	// Another account's statement, running while txlab dumps.
	other, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	running := make(chan error, 1)
	go func() {
		_, err := other.ExecContext(context.Background(), "DO SLEEP(3), 'user-secret-literal'")
		running <- err
	}()
	defer func() { <-running }()
	deadline := time.Now().Add(2 * time.Second)
	for {
		var n int
		root.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'DO SLEEP(3)%'").Scan(&n)
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}

	var f, q sql.NullString
	if err := root.QueryRow("SELECT f, q FROM txlab_esc.v").Scan(&f, &q); err != nil {
		t.Fatal(err)
	}
	if !q.Valid || !strings.Contains(q.String, "user-secret-literal") {
		t.Fatalf("the administrator reading the view sees no other session's statement (%v): the test proves nothing", q)
	}
	st, err := tg.Dump(ctx)
	if err != nil {
		t.Fatalf("Dump: %v", err)
	}
	rows := st["v"]
	if len(rows) != 1 {
		t.Fatalf("the view's rows: %v", rows)
	}
	if f.Valid && !rows[0][0].Null {
		t.Errorf("the dump read a server file through LOAD_FILE: %q", rows[0][0].S)
	}
	if !rows[0][1].Null {
		t.Errorf("the dump shows another account's statement: %q", rows[0][1].S)
	}
}

// TestCloseDropsCaseViews: MariaDB's accounts own nothing, so the views a
// case made outlived its account, and an administrator who later read one
// (SQL SECURITY INVOKER) ran it with the administrator's rights (red team
// 3). Close drops the views txlab recorded as its own; the case's tables
// stay for a person to read, and a view txlab did not make is not touched.
func TestCloseDropsCaseViews(t *testing.T) {
	root := rootDB(t)
	ctx := targettest.Ctx(t)
	tg, err := OpenURL(ctx, shared.Server(t).DSN(), "txlab_views")
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	s := targettest.Session(t, tg)
	targettest.MustExec(t, s, "CREATE TABLE t (a INT)")
	targettest.MustExec(t, s, "CREATE SQL SECURITY INVOKER VIEW v AS SELECT a FROM t")
	if err := tg.Adopt(ctx, []string{"t", "v"}); err != nil {
		t.Fatal(err)
	}
	// Someone else's view in txlab's schema is theirs.
	if _, err := root.Exec("CREATE VIEW txlab_views.u AS SELECT 1 AS one"); err != nil {
		t.Fatal(err)
	}
	defer root.Exec("DROP VIEW txlab_views.u")
	s.Close()
	if err := tg.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var tables []string
	rows, err := root.Query("SELECT CONCAT(TABLE_NAME, ' ', TABLE_TYPE) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'txlab_views' AND TABLE_NAME <> 'txlab_owned_tables' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		tables = append(tables, s)
	}
	rows.Close()
	if strings.Join(tables, ", ") != "t BASE TABLE, u VIEW" {
		t.Errorf("after Close, txlab_views holds %q; want the table t and the view txlab did not make", tables)
	}
}

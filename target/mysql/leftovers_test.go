package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/target/targettest"
)

// userConn is a connection of the server's root, as another application
// would have, with no help from txlab's adapter.
func userConn(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", shared.Server(t).DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestCharsetPinned: sessions talk utf8mb4 even when the server's
// init_connect asks for GBK (it runs for accounts without SUPER: the case
// account); a URL that asks for another character set is refused.
func TestCharsetPinned(t *testing.T) {
	user := userConn(t)
	ctx := targettest.Ctx(t)
	if _, err := user.ExecContext(ctx, "SET GLOBAL init_connect = 'SET NAMES gbk'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { user.ExecContext(context.Background(), "SET GLOBAL init_connect = ''") })
	s := targettest.Session(t, open(t, "txlab_charset"))
	res := targettest.MustExec(t, s, "SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection")
	if got := res.Rows[0]; got[0].S != "utf8mb4" || got[1].S != "utf8mb4" || got[2].S != "utf8mb4" || got[3].S != "utf8mb4_general_ci" {
		t.Errorf("session talks %v", got)
	}
	// 丁 is E4 B8 81; GBK reads E4 B8 and 81 5C, swallowing the
	// backslash. In utf8mb4 the string is one value.
	res = targettest.MustExec(t, s, `SELECT '丁\' ; SELECT 1 -- '`)
	if v := res.Rows[0][0].S; v != `丁' ; SELECT 1 -- ` {
		t.Errorf("read as %q", v)
	}
	for _, q := range []string{"charset=gbk", "character_set_client=gbk", "collation_connection=sjis_japanese_ci", "NAMES=big5"} {
		_, err := OpenURL(ctx, shared.Server(t).DSN()+"?"+q, "txlab_charset")
		if err == nil || !strings.Contains(err.Error(), "keeps the connection's character set at utf8mb4") {
			t.Errorf("?%s: %v", q, err)
		}
	}
}

// TestPreparedXALeftover: a prepared XA transaction left on the server
// (its connection gone) makes Open fail with one line naming each xid and
// the XA ROLLBACK that ends it; once ended, Open works.
func TestPreparedXALeftover(t *testing.T) {
	ctx := targettest.Ctx(t)
	user := userConn(t)
	if _, err := user.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS xa_user"); err != nil {
		t.Fatal(err)
	}
	if _, err := user.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS xa_user.held (id INT) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	ends := []string{"XA ROLLBACK 'left over'", "XA ROLLBACK X'67',X'62',7"}
	t.Cleanup(func() {
		for _, q := range ends {
			user.ExecContext(context.Background(), q) // a left xid would hang the package's other tests
		}
		user.ExecContext(context.Background(), "DROP DATABASE xa_user")
	})
	for _, xid := range []string{"'left over'", "'g','b',7"} {
		c, err := user.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"XA START " + xid, "INSERT INTO xa_user.held VALUES (1)", "XA END " + xid, "XA PREPARE " + xid} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		c.Raw(func(any) error { return driver.ErrBadConn }) // drop the connection: the prepared xid stays
		c.Close()
	}
	_, err := OpenURL(ctx, shared.Server(t).DSN(), "txlab_xa")
	want := "holds 2 prepared XA transactions, which keep their locks until ended and would make this run wait: 'left over', X'67',X'62',7; " +
		"unless another application still needs them, end them: XA ROLLBACK 'left over'; XA ROLLBACK X'67',X'62',7;"
	if err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open: %v\nwant …%s", err, want)
	}
	for _, q := range ends {
		if _, err := user.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	open(t, "txlab_xa")
}

// abandon leaves tg as kill -9 of its run would: its connections gone,
// its case account, views and tables still there. It returns once the
// server has let go of the schema's lock.
func abandon(t *testing.T, tg *Target) {
	t.Helper()
	for _, db := range []*sql.DB{tg.sessions, tg.owner, tg.admin} {
		db.Close()
	}
	tg.lock.Close()
	user := userConn(t)
	for i := 0; ; i++ {
		var free sql.NullInt64
		if err := user.QueryRowContext(targettest.Ctx(t), "SELECT IS_FREE_LOCK(?)", tg.lockName).Scan(&free); err != nil {
			t.Fatal(err)
		}
		if free.Int64 == 1 {
			return
		}
		if i == 100 {
			t.Fatalf("lock %s still held", tg.lockName)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// accountExists says whether an account named user exists.
func accountExists(t *testing.T, user string) bool {
	t.Helper()
	var n int
	if err := userConn(t).QueryRowContext(targettest.Ctx(t), "SELECT COUNT(*) FROM mysql.user WHERE User = ?", user).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// TestSweepLeftovers: the worker and oracle databases a killed run left
// (SCHEMA_w2, SCHEMA_isorel) lose their case accounts and views when the
// next run opens SCHEMA; a sibling a live run holds keeps its account, and
// an account of txlab's name that reaches further is not touched.
func TestSweepLeftovers(t *testing.T) {
	ctx := targettest.Ctx(t)
	user := userConn(t)
	for _, sib := range []string{"txlab_sw_w2", "txlab_sw_isorel"} {
		tg := open(t, sib)
		targettest.Fresh(t, tg, "CREATE TABLE t (id INT PRIMARY KEY)", "CREATE SQL SECURITY INVOKER VIEW v AS SELECT LOAD_FILE('/etc/passwd') AS f")
		abandon(t, tg)
		if !accountExists(t, caseAccountName(sib)) {
			t.Fatalf("%s: no account left to sweep", sib)
		}
	}
	live := open(t, "txlab_sw_w3") // a run still going
	var me string
	if err := user.QueryRowContext(ctx, "SELECT USER()").Scan(&me); err != nil {
		t.Fatal(err)
	}
	foreign := caseAccount{user: caseAccountName("txlab_sw_x"), host: hostOf(me)}
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS txlab_sw_x", "CREATE USER IF NOT EXISTS " + foreign.String(), "GRANT SELECT ON *.* TO " + foreign.String()} {
		if _, err := user.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { user.ExecContext(context.Background(), "DROP USER IF EXISTS "+foreign.String()) })

	swept, err := open(t, "txlab_sw").SweepLeftovers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(swept, ","); got != "txlab_sw_isorel,txlab_sw_w2" {
		t.Errorf("swept %q", got)
	}
	for _, sib := range []string{"txlab_sw_w2", "txlab_sw_isorel"} {
		if accountExists(t, caseAccountName(sib)) {
			t.Errorf("%s: account left", sib)
		}
		var views int
		if err := user.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?", sib).Scan(&views); err != nil {
			t.Fatal(err)
		}
		if views != 0 {
			t.Errorf("%s: %d views left", sib, views)
		}
	}
	if !accountExists(t, live.account.user) {
		t.Error("the live run's account was dropped")
	}
	if !accountExists(t, foreign.user) {
		t.Error("an account that is not txlab's was dropped")
	}
}

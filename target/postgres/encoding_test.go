package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/targettest"
)

// sjisTrick is one statement in UTF-8 and two more in SJIS: 丁 is E4 B8 81,
// which SJIS reads as E4 B8 and 81 5C, swallowing the backslash, so the
// E-string ends there and CREATE ROLE runs. On a UTF-8 connection it is
// a SELECT of one string.
const sjisTrick = `SELECT E'丁\' ; CREATE ROLE txlab_evil SUPERUSER; SELECT ''--'`

// TestEncodingPinned: whatever the URL or the environment ask for, the
// admin connection and every session talk UTF-8; the SJIS trick is one
// string there, and creates no role.
func TestEncodingPinned(t *testing.T) {
	t.Setenv("PGCLIENTENCODING", "SJIS")
	dsn := shared.Server(t).DSN()
	for _, extra := range []string{"&client_encoding=SJIS", "&options=-c%20client_encoding%3DBIG5", ""} {
		tg, err := Open(targettest.Ctx(t), dsn+extra, "", "txlab_enc")
		if err != nil {
			t.Fatalf("%s: %v", extra, err)
		}
		if enc := tg.admin.ParameterStatus("client_encoding"); enc != "UTF8" {
			t.Errorf("%s: admin connection talks %s", extra, enc)
		}
		s := targettest.Session(t, tg)
		if res := targettest.MustExec(t, s, "SHOW client_encoding"); res.Rows[0][0].S != "UTF8" {
			t.Errorf("%s: session talks %v", extra, res.Rows)
		}
		res := targettest.MustExec(t, s, sjisTrick)
		if len(res.Rows) != 1 || res.Rows[0][0].S != `丁' ; CREATE ROLE txlab_evil SUPERUSER; SELECT '--` {
			t.Errorf("%s: the trick read as %v", extra, res.Rows)
		}
		s.Close()
		tg.Close()
	}
	noRole(t, "txlab_evil")
}

// TestEncodingChangedCloses: a session whose encoding changes anyway (the
// scope check, which refuses SET client_encoding, is not at this layer)
// is closed before it runs another statement; in SJIS the trick fails
// rather than run, as the extended protocol takes one statement a message.
func TestEncodingChangedCloses(t *testing.T) {
	tg := open(t, "txlab_enc")
	s := targettest.Session(t, tg)
	_, err := s.Exec(targettest.Ctx(t), "SET client_encoding = 'SJIS'")
	if err == nil || !strings.Contains(err.Error(), `client_encoding "SJIS"`) {
		t.Fatalf("SET client_encoding: %v, want the session closed", err)
	}
	if _, err := s.Exec(targettest.Ctx(t), "SELECT 1"); err == nil {
		t.Errorf("the session still runs statements")
	}
	// Below the check and the closing: the server in SJIS, the statement
	// through runOne, as Exec sends it.
	c, err := pgconn.ConnectConfig(targettest.Ctx(t), tg.sessCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := run(targettest.Ctx(t), c, "SET client_encoding = 'SJIS'"); err != nil {
		t.Fatal(err)
	}
	_, err = runOne(targettest.Ctx(t), c, sjisTrick)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42601" {
		t.Errorf("in SJIS through the extended protocol: %v, want 42601 (cannot insert multiple commands)", err)
	}
	noRole(t, "txlab_evil")
}

// TestOneStatementPerMessage: Exec runs one statement; a string of two
// fails whole, and the second does not run.
func TestOneStatementPerMessage(t *testing.T) {
	tg := open(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE one (id INT)")
	s := targettest.Session(t, tg)
	for _, q := range []string{"INSERT INTO one VALUES (1); INSERT INTO one VALUES (2)", "SELECT 1; DROP TABLE one", "SELECT 1;;SELECT 2"} {
		if _, err := s.Exec(targettest.Ctx(t), q); err == nil || !strings.Contains(err.Error(), "cannot insert multiple commands") {
			t.Errorf("%q: %v, want the server's refusal of several statements", q, err)
		}
	}
	if res := targettest.MustExec(t, s, "SELECT count(*) FROM one"); res.Rows[0][0].S != "0" {
		t.Errorf("rows: %v", res.Rows)
	}
	for _, q := range []string{"", "  ", "-- a comment", "SELECT 1;", "/* c */ SELECT 1 ; "} {
		if _, err := s.Exec(targettest.Ctx(t), q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
}

// TestSameTextBothProtocols: a case statement's result through the
// extended protocol is the simple protocol's, value for value (the
// server's text output of each type), columns, affected counts and
// errors alike.
func TestSameTextBothProtocols(t *testing.T) {
	tg := open(t, "txlab")
	targettest.Fresh(t, tg, "CREATE TABLE v (id INT PRIMARY KEY, n NUMERIC(10,3), f FLOAT8, b BOOL, ts TIMESTAMPTZ, d DATE, i INTERVAL, "+
		"a INT[], j JSONB, by BYTEA, u TEXT, x XML, r INT4RANGE, bits BIT(4), m MONEY, uu UUID, p POINT)")
	s := targettest.Session(t, tg).(*Session)
	ctx := targettest.Ctx(t)
	for _, q := range []string{
		"SET TIME ZONE 'Asia/Kolkata'", "SET extra_float_digits = 0", "SET bytea_output = 'escape'", "SET DateStyle = 'SQL, DMY'",
	} {
		same(t, s, q)
		if _, err := run(ctx, s.conn, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO v VALUES (1, 12.5, 0.1, true, '2026-12-02 07:44:16.123456+00', '2026-02-28', '1 day 02:03:04.5',
		  '{1,NULL,3}', '{"b": [1, 2.50], "a": null}', '\x00ff5c27', 'café 漢字 ''q'' \', '<a>b</a>', '[1,5)', B'1010', 12.34,
		  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '(1.5,-2)')`,
		"INSERT INTO v (id) VALUES (2), (3)",
		"SELECT * FROM v ORDER BY id",
		"SELECT 1::float8 / 3, 1e300::float8 * 10, 'NaN'::numeric, -0.0::float8, 2^0.5",
		"SELECT NULL, '', NULL::text, ARRAY[]::int[], '{}'::jsonb",
		"UPDATE v SET n = n * 2 WHERE id > 1",
		"DELETE FROM v WHERE id = 3",
		"SELECT id FROM v WHERE false",
		"SELECT 1/0",
		"SELECT * FROM nowhere",
		"SHOW transaction_isolation",
		"BEGIN", "SELECT count(*) FROM v", "SELECT * FROM v FOR UPDATE", "COMMIT",
		"CREATE TEMP TABLE tmp AS SELECT * FROM v", "EXPLAIN (COSTS OFF) SELECT * FROM v WHERE id = 1",
	} {
		same(t, s, q)
	}
}

// same runs q through Exec's protocol and through the simple protocol,
// rolling back between the two when it writes, and compares.
func same(t *testing.T, s *Session, q string) {
	t.Helper()
	ctx := targettest.Ctx(t)
	writes := strings.HasPrefix(q, "INSERT") || strings.HasPrefix(q, "UPDATE") || strings.HasPrefix(q, "DELETE") || strings.HasPrefix(q, "CREATE")
	if writes {
		if _, err := run(ctx, s.conn, "BEGIN"); err != nil {
			t.Fatal(err)
		}
	}
	ext, extErr := runOne(ctx, s.conn, q)
	if writes {
		if _, err := run(ctx, s.conn, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
	simple, simpleErr := run(ctx, s.conn, q)
	if (extErr == nil) != (simpleErr == nil) || extErr != nil && extErr.Error() != simpleErr.Error() {
		t.Errorf("%q: extended %v, simple %v", q, extErr, simpleErr)
		return
	}
	if extErr != nil {
		return
	}
	if a, b := dumpResult(ext), dumpResult(simple); a != b {
		t.Errorf("%q:\nextended %s\nsimple   %s", q, a, b)
	}
}

func dumpResult(r *target.Result) string {
	var b strings.Builder
	b.WriteString(strings.Join(r.Columns, "|"))
	for _, row := range r.Rows {
		b.WriteString("\n")
		for _, v := range row {
			if v.Null {
				b.WriteString("NULL|")
			} else {
				b.WriteString("'" + v.S + "'|")
			}
		}
	}
	b.WriteString("\naffected ")
	b.WriteString(strings.Repeat("+", int(r.Affected+1)))
	return b.String()
}

// noRole fails the test when role exists on the shared server.
func noRole(t *testing.T, role string) {
	t.Helper()
	tg := open(t, "txlab_enc_check")
	rows, err := tg.adminQuery(targettest.Ctx(t), "SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = "+quoteString(role))
	if err != nil || len(rows) != 0 {
		t.Errorf("role %s: %d rows, %v", role, len(rows), err)
	}
}

// TestPreparedLeftover: a prepared transaction in txlab's database makes
// Open fail with one line naming it and the statement that ends it; once
// ended, Open works. One in another database is not txlab's concern.
func TestPreparedLeftover(t *testing.T) {
	srv := localdbtest.Server(t, localdb.Postgres, "max_prepared_transactions=4")
	ctx := targettest.Ctx(t)
	user, err := pgconn.Connect(ctx, srv.DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close(context.Background())
	for _, q := range []string{"CREATE TABLE held (id INT)", "BEGIN", "INSERT INTO held VALUES (1)", "PREPARE TRANSACTION 'left''over'"} {
		if _, err := run(ctx, user, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_, err = Open(ctx, srv.DSN(), "", "txlab")
	want := `database "postgres" holds 1 prepared transaction, which keep their locks until ended and would make this run wait: 'left''over' (role txlab); ` +
		`unless another application still needs them, end them as their role or a superuser, in this database: ROLLBACK PREPARED 'left''over';`
	if err == nil || err.Error() != want {
		t.Fatalf("Open: %v\nwant %s", err, want)
	}
	if _, err := run(ctx, user, "ROLLBACK PREPARED 'left''over'"); err != nil {
		t.Fatal(err)
	}
	tg, err := Open(ctx, srv.DSN(), "", "txlab")
	if err != nil {
		t.Fatalf("Open after ROLLBACK PREPARED: %v", err)
	}
	tg.Close()
}

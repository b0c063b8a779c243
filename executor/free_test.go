package executor_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
)

// clientFunc adapts a function to executor.Client.
type clientFunc func(ctx context.Context, c *executor.Conn, n int) (string, bool, error)

func (f clientFunc) Txn(ctx context.Context, c *executor.Conn, n int) (string, bool, error) {
	return f(ctx, c, n)
}

// freeDBMSs are the DBMSs the runner is tested on, with a query that reads
// the session's isolation level back and the level to set.
var freeDBMSs = []struct {
	dbms, levelQuery string
	level            target.Level
	want             string
	kill             string // a statement that kills the session's own connection
}{
	{"sqlite", "PRAGMA read_uncommitted", target.Serializable, "0", ""},
	{"mariadb", "SELECT @@tx_isolation", target.ReadCommitted, "READ-COMMITTED", "KILL CONNECTION_ID()"},
	{"postgres", "SHOW transaction_isolation", target.ReadCommitted, "read committed", "SELECT pg_terminate_backend(pg_backend_pid())"},
}

// TestFreeLimitsAndLevel: the Txns cap holds across sessions, every session
// runs at the level asked for, and Prepare's tables are there.
func TestFreeLimitsAndLevel(t *testing.T) {
	for _, db := range freeDBMSs {
		t.Run(db.dbms, func(t *testing.T) {
			tg := connecttest.Target(t, db.dbms)
			ctx := context.Background()
			if _, err := executor.Prepare(ctx, tg, []string{"CREATE TABLE kv (k INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 0)"}); err != nil {
				t.Fatal(err)
			}
			var ran atomic.Int64
			var mu sync.Mutex
			sessions := map[int]bool{}
			var clients atomic.Int64
			st, err := executor.Free(ctx, tg, executor.FreeOptions{
				Sessions: 3, Level: db.level, Txns: 20,
				NewClient: func(int) executor.Client {
					clients.Add(1)
					return clientFunc(func(ctx context.Context, c *executor.Conn, n int) (string, bool, error) {
						ran.Add(1)
						mu.Lock()
						sessions[c.Session()] = true
						mu.Unlock()
						if c.Level() != db.level {
							t.Errorf("Conn.Level() = %s, want %s", c.Level(), db.level)
						}
						res, te, err := c.Exec(ctx, db.levelQuery)
						if err != nil || te != nil {
							return "", false, errors.Join(err, te)
						}
						if got := strings.ToUpper(res.Rows[0][0].S); got != strings.ToUpper(db.want) {
							t.Errorf("session %d level %q, want %q", c.Session(), got, db.want)
						}
						if _, te, err := c.Exec(ctx, "UPDATE kv SET v = v + 1 WHERE k = 1"); err != nil {
							return "", false, err
						} else if te != nil {
							return string(te.Class), false, nil // busy on SQLite: backed off
						}
						return "", false, nil
					})
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			// Every session gets a client; which sessions run the 20
			// transactions is timing (on SQLite a busy session backs off
			// while the others finish them).
			if ran.Load() != 20 || clients.Load() != 3 || len(sessions) == 0 || st.Reconnects != 0 || st.Elapsed <= 0 {
				t.Errorf("ran %d transactions on sessions %v with %d clients, stats %+v; want 20 with 3 clients", ran.Load(), sessions, clients.Load(), st)
			}
			for s := range sessions {
				if s < 1 || s > 3 {
					t.Errorf("session number %d, want 1..3", s)
				}
			}
		})
	}
}

// TestFreeStops: a client's fatal error stops the others and is returned;
// Duration ends an endless run; a client that is done ends its session.
func TestFreeStops(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx := context.Background()
	endless := func(fail int) func(int) executor.Client {
		return func(worker int) executor.Client {
			return clientFunc(func(ctx context.Context, c *executor.Conn, n int) (string, bool, error) {
				if worker == 0 && n == fail {
					return "", false, errors.New("client gave up")
				}
				_, _, err := c.Exec(ctx, "SELECT 1")
				return "", false, err
			})
		}
	}
	began := time.Now()
	_, err := executor.Free(ctx, tg, executor.FreeOptions{Sessions: 3, NewClient: endless(5)})
	if err == nil || !strings.Contains(err.Error(), "client gave up") {
		t.Errorf("fatal client error: Free returned %v", err)
	}
	if el := time.Since(began); el > 10*time.Second {
		t.Errorf("the other sessions ran on for %v", el)
	}

	st, err := executor.Free(ctx, tg, executor.FreeOptions{Sessions: 2, Duration: 200 * time.Millisecond, NewClient: endless(-1)})
	if err != nil || st.Elapsed < 200*time.Millisecond || st.Elapsed > 5*time.Second {
		t.Errorf("Duration 200ms: %v, elapsed %v", err, st.Elapsed)
	}

	var ran atomic.Int64
	_, err = executor.Free(ctx, tg, executor.FreeOptions{Sessions: 2, NewClient: func(int) executor.Client {
		return clientFunc(func(_ context.Context, _ *executor.Conn, n int) (string, bool, error) {
			ran.Add(1)
			return "", n == 2, nil
		})
	}})
	if err != nil || ran.Load() != 6 {
		t.Errorf("clients done after 3 transactions each: ran %d, err %v", ran.Load(), err)
	}
}

// TestFreeReconnect kills a session's own connection: with Reconnect the
// session comes back under a new number; without it the run ends with an
// error naming the session.
func TestFreeReconnect(t *testing.T) {
	for _, db := range freeDBMSs {
		if db.kill == "" {
			continue
		}
		t.Run(db.dbms, func(t *testing.T) {
			tg := connecttest.Target(t, db.dbms)
			ctx := context.Background()
			for _, reconnect := range []bool{true, false} {
				var seen []int
				st, err := executor.Free(ctx, tg, executor.FreeOptions{
					Sessions: 1, Reconnect: reconnect, Txns: 4,
					NewClient: func(int) executor.Client {
						return clientFunc(func(ctx context.Context, c *executor.Conn, n int) (string, bool, error) {
							seen = append(seen, c.Session())
							if n == 1 {
								_, te, lost := c.Exec(ctx, db.kill)
								if lost == nil {
									t.Errorf("%s: no lost connection (DBMS error %v)", db.kill, te)
								}
								return "connection", false, nil
							}
							_, _, err := c.Exec(ctx, "SELECT 1")
							return "", false, err
						})
					},
				})
				if reconnect {
					if err != nil || st.Reconnects != 1 || len(seen) != 4 || seen[1] != seen[0] || seen[2] == seen[1] {
						t.Errorf("reconnect: err %v, stats %+v, sessions %v; want the session renumbered after the kill", err, st, seen)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), "session 1: the connection was lost") || len(seen) != 2 {
					t.Errorf("no reconnect: err %v, sessions %v; want the run ended after the kill", err, seen)
				}
			}
		})
	}
}

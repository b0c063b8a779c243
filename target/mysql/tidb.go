package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// What differs on TiDB, measured on v8.5.6 (unistore):
//
//   - Lock waits. A pessimistic statement waiting for a row lock is a
//     transaction in state LockWaiting in information_schema.TIDB_TRX
//     (TiDB's own, live view of its transactions). A write that is not
//     pessimistic — an autocommit statement (pessimistic-auto-commit is off
//     by default) or an optimistic transaction's COMMIT — meets a lock in
//     its prewrite and retries until the lock goes, in state Committing.
//     information_schema.DATA_LOCK_WAITS lists only pessimistic waits, asks
//     every TiKV store (an RPC per poll) and is empty on unistore, so it is
//     not asked.
//   - A DDL statement waits for the transactions that use its table (the
//     metadata lock) in the DDL job, not in a transaction: the job is in
//     mysql.tidb_mdl_view, whose query is the statement the session runs
//     (PROCESSLIST). That view costs milliseconds (the lock views cost
//     0.4 ms, CLUSTER_TIDB_TRX 1 ms), so it is asked only when a session
//     runs DDL, and that is looked at once every ddlCheckEvery.
//   - SELECT … FOR SHARE and LOCK IN SHARE MODE fail with 1235 unless
//     tidb_enable_noop_functions (which makes them take no lock) or
//     tidb_enable_shared_lock_promotion (which makes them FOR UPDATE) is on.
//   - KILL ends a session of any TiDB instance (global kill, on by default
//     since v6.1); KILL TIDB is the older spelling for the instance the
//     connection is on.
//   - GET_LOCK, IS_USED_LOCK and RELEASE_LOCK work as in MySQL; GRANT and
//     SHOW GRANTS take and print the same forms.

// committingWait is how long a write must stay in state Committing before
// Waiting reports it: a commit that meets no lock takes a few milliseconds
// on unistore, one that meets a lock retries until the lock is released.
const committingWait = 100 * time.Millisecond

// ddlCheckEvery spaces out the look for DDL waiting on a metadata lock.
const ddlCheckEvery = 50 * time.Millisecond

// tidbState is what Open learns of a TiDB server.
type tidbState struct {
	// trx is the view of transactions: TIDB_TRX when the server is the
	// cluster's one TiDB instance, CLUSTER_TIDB_TRX when there are several
	// (a session may be on another instance than the admin connection).
	trx string
	mu  sync.Mutex
	// committing holds, per session, the transaction seen in state
	// Committing and when it was first seen so.
	committing map[string]committing
	// lastDDLCheck is when the sessions were last looked at for DDL;
	// noMDL: the --db account may not read mysql.tidb_mdl_view.
	lastDDLCheck time.Time
	noMDL        bool
}

type committing struct {
	trx   string
	since time.Time
}

// openTiDB reads the settings that change what txlab may generate and
// chooses how to see lock waits.
func (t *Target) openTiDB(ctx context.Context) error {
	noop := t.sysvarOn(ctx, "tidb_enable_noop_functions")
	promote := t.sysvarOn(ctx, "tidb_enable_shared_lock_promotion")
	t.noSharedLocks = !noop && !promote
	t.tidb = &tidbState{trx: "TIDB_TRX", committing: map[string]committing{}}
	var instances int
	if err := t.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.CLUSTER_INFO WHERE TYPE = 'tidb'").Scan(&instances); err == nil && instances > 1 {
		t.tidb.trx = "CLUSTER_TIDB_TRX"
	}
	// Without PROCESS, TIDB_TRX shows an account's own transactions only
	// (no error): DATA_LOCK_WAITS, which requires it, tells.
	rows, err := t.admin.QueryContext(ctx, "SELECT 1 FROM information_schema.DATA_LOCK_WAITS LIMIT 1")
	var me *drv.MySQLError
	switch {
	case errors.As(err, &me) && accessCodes[me.Number]:
		t.blind = true
	case err != nil:
		return fmt.Errorf("%s: lock-wait introspection: %w", t.base.Addr, err)
	default:
		rows.Close()
	}
	return nil
}

// sysvarOn reads a system variable of the admin session: ON, WARN or 1 is
// on; a variable this TiDB does not have is off.
func (t *Target) sysvarOn(ctx context.Context, name string) bool {
	var v sql.NullString
	if err := t.admin.QueryRowContext(ctx, "SELECT @@"+name).Scan(&v); err != nil {
		return false
	}
	switch strings.ToUpper(v.String) {
	case "ON", "WARN", "1":
		return true
	}
	return false
}

// waitingTiDB reports the sessions of list whose transaction waits for a
// pessimistic lock (LockWaiting) or whose commit has been held up by a
// lock for committingWait (see the top of this file).
func (t *Target) waitingTiDB(ctx context.Context, ids []string, list string, out map[string]bool) (map[string]bool, error) {
	rows, err := t.admin.QueryContext(ctx, "SELECT SESSION_ID, ID, STATE FROM information_schema."+t.tidb.trx+
		" WHERE SESSION_ID IN ("+list+") AND STATE IN ('LockWaiting', 'Committing')")
	if err != nil {
		return nil, fmt.Errorf("tidb: lock waits: %w", err)
	}
	defer rows.Close()
	now := time.Now()
	seen := map[string]committing{}
	for rows.Next() {
		var sess, trx, state string
		if err := rows.Scan(&sess, &trx, &state); err != nil {
			return nil, err
		}
		if state == "LockWaiting" {
			out[sess] = true
		} else {
			seen[sess] = committing{trx: trx, since: now}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	st := t.tidb
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, id := range ids {
		c, ok := seen[id]
		if !ok {
			delete(st.committing, id)
			continue
		}
		if prev, ok := st.committing[id]; ok && prev.trx == c.trx {
			c.since = prev.since
		}
		st.committing[id] = c
		if now.Sub(c.since) >= committingWait {
			out[id] = true
		}
	}
	if st.noMDL || now.Sub(st.lastDDLCheck) < ddlCheckEvery || len(out) == len(ids) {
		return out, nil
	}
	st.lastDDLCheck = now
	return out, t.ddlWaitsTiDB(ctx, list, out)
}

// ddlWaitsTiDB adds the sessions of list whose DDL statement waits for a
// metadata lock. Called with t.tidb.mu held.
func (t *Target) ddlWaitsTiDB(ctx context.Context, list string, out map[string]bool) error {
	running, err := catalog{t}.TableRowsQuery(ctx, "SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE ID IN ("+list+
		") AND COMMAND = 'Query' AND INFO REGEXP '^[[:space:]]*(ALTER|CREATE|DROP|TRUNCATE|RENAME)[[:space:]]'")
	if err != nil || len(running) == 0 {
		return err
	}
	jobs, err := catalog{t}.TableRowsQuery(ctx, "SELECT query, session_id FROM mysql.tidb_mdl_view")
	if e := target.AsError(err); e != nil && e.Class == target.ClassOther && strings.Contains(e.Message, "denied") {
		t.tidb.noMDL = true
		return nil
	}
	if err != nil {
		return err
	}
	for _, r := range running {
		for _, j := range jobs {
			// The view's session is the holder, never the DDL's own.
			if j[0].S == r[1].S && j[1].S != r[0].S {
				out[r[0].S] = true
			}
		}
	}
	return nil
}

// killTiDB ends a session: KILL reaches every instance where global kill is
// on (the default); KILL TIDB is the spelling where it is off.
func (t *Target) killTiDB(ctx context.Context, id string) {
	if _, err := t.admin.ExecContext(ctx, "KILL "+id); err != nil {
		t.admin.ExecContext(ctx, "KILL TIDB "+id)
	}
}

package wss

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/testcase"
)

var (
	// nondeterministic are values a serial re-run computes anew: the time,
	// random numbers, ids the server hands out, the server's own tables.
	nondeterministic = regexp.MustCompile(`(?i)\b(NOW|SYSDATE|CURDATE|CURTIME|UTC_TIMESTAMP|UTC_DATE|UTC_TIME|UNIX_TIMESTAMP|CURRENT_TIMESTAMP|CURRENT_DATE|CURRENT_TIME|LOCALTIME|LOCALTIMESTAMP|RAND|RANDOM|UUID|UUID_SHORT|GEN_RANDOM_UUID|CONNECTION_ID|PG_BACKEND_PID|LAST_INSERT_ID|ROW_COUNT|FOUND_ROWS|NEXTVAL|CURRVAL|LASTVAL|TXID_CURRENT)\b|\b(mysql|information_schema|performance_schema|sys|pg_catalog)\s*\.|@@|\bAUTO_INCREMENT\b|\bAUTOINCREMENT\b|\bSERIAL\b|\bIDENTITY\b|\bSEQUENCE\b`)
	// outsideTxn are statements that end a transaction implicitly or
	// change how later statements behave: WSS's transactions are BEGIN …
	// COMMIT/ROLLBACK blocks and autocommit statements. Savepoints are
	// inside them: a serial run repeats a transaction's savepoints, and a
	// run of its statements one by one leaves out what a ROLLBACK TO undid
	// (dataSteps).
	outsideTxn = regexp.MustCompile(`(?i)^\s*(CREATE|ALTER|DROP|TRUNCATE|RENAME|XA|LOCK|UNLOCK|SET|CALL|DO|GRANT|REVOKE|FLUSH|ANALYZE|OPTIMIZE|LOAD|HANDLER|PREPARE|EXECUTE|DEALLOCATE)\b`)
)

// skipsLocked marks a locking read that leaves out the rows others hold
// locked: "Skipping locked rows provides an inconsistent view of the data"
// (PostgreSQL 15 docs, SELECT, The Locking Clause; MySQL 8.0 manual
// 17.7.2.4: "returns an inconsistent view of the data"), which no serial
// order need reproduce.
func skipsLocked(sql string) bool { return features.Uses(sql, "skip-locked") }

// outsideModel says why case c is beyond what comparing it with serial
// re-runs can judge ("" when it is not): a value a re-run computes anew, or
// a step WSS's transaction model does not cover. txlab's generator writes
// no such case; published cases (ReplBug's MDEV-16024 reads NOW(6) and
// mysql.transaction_registry, MDEV-25297 runs DDL, XA and savepoints inside
// a transaction) do.
func outsideModel(c *testcase.Case) string {
	for _, s := range c.Setup {
		if m := nondeterministic.FindString(s); m != "" {
			return fmt.Sprintf("the setup uses %s", strings.TrimSpace(m))
		}
	}
	for _, st := range c.Steps {
		if m := nondeterministic.FindString(st.SQL); m != "" {
			return fmt.Sprintf("connection %d's %s uses %s", st.Conn, testcase.KindOf(st).Keyword, strings.TrimSpace(m))
		}
		if skipsLocked(st.SQL) {
			return fmt.Sprintf("connection %d's %s uses SKIP LOCKED, whose view of the data is inconsistent by design", st.Conn, testcase.KindOf(st).Keyword)
		}
		if m := outsideTxn.FindStringSubmatch(st.SQL); m != nil {
			return fmt.Sprintf("connection %d runs %s, outside WSS's transaction model", st.Conn, strings.ToUpper(strings.Join(strings.Fields(m[0]), " ")))
		}
	}
	return ""
}

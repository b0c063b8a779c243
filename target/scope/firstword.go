package scope

import (
	"strings"

	"github.com/txlab/txlab/internal/editdist"
)

// statementWords are the words a statement of MySQL, MariaDB, TiDB,
// PostgreSQL or SQLite may start with, compound statements and stored
// program control included: a first word outside them is no statement of
// any of the DBMSs, but a typo.
var statementWords = wordSet(`ABORT ALTER ANALYSE ANALYZE ATTACH BACKUP BEGIN BINLOG CACHE CALL CASE
CHANGE CHECK CHECKPOINT CHECKSUM CLONE CLOSE CLUSTER COMMENT COMMIT COPY CREATE DEALLOCATE
DECLARE DELETE DESC DESCRIBE DETACH DISCARD DO DROP END EXECUTE EXPLAIN FETCH FLUSH GET GRANT
HANDLER HELP IF IMPORT INSERT INSTALL ITERATE KILL LEAVE LISTEN LOAD LOCK LOOP MERGE MOVE NOTIFY
OPEN OPTIMIZE PRAGMA PREPARE PURGE REASSIGN REFRESH REINDEX RELEASE RENAME REPAIR REPEAT REPLACE
RESET RESIGNAL RESTART RESTORE RETURN REVOKE ROLLBACK SAVEPOINT SECURITY SELECT SET SHOW SHUTDOWN
SIGNAL START STOP TABLE TRUNCATE UNINSTALL UNLISTEN UNLOCK UPDATE USE VACUUM VALUES WHILE WITH XA`)

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		out[w] = true
	}
	return out
}

// unknownFirst is the refusal of a statement whose first word (upper case)
// starts no statement the check knows. A word that starts no SQL statement
// at all (SELEC) is said to be the syntax error it is, with the word it
// likely misspells, rather than sent to --trust-case as if it were a kind
// of statement txlab does not know; the refusal is the same either way.
func unknownFirst(word string) *Refusal {
	if statementWords[word] {
		return unknown(word)
	}
	r := unknown(word)
	r.Reason = word + " starts no SQL statement: a syntax error"
	if near := nearestWord(word); near != "" {
		r.Reason += " (did you mean " + near + "?)"
	}
	return r
}

// nearestWord is the statement word at the smallest edit distance from w,
// if that is at most a third of its length, else "".
func nearestWord(w string) string {
	best, bestD := "", len(w)+1
	for s := range statementWords {
		if d := editdist.Levenshtein(w, s); d*3 <= len(s) && (d < bestD || d == bestD && s < best) {
			best, bestD = s, d
		}
	}
	return best
}

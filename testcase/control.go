package testcase

import "strings"

// Control is what a statement does to its connection's transaction.
type Control int

// Transaction control kinds.
const (
	NotControl Control = iota // any other statement
	Begin                     // BEGIN, START TRANSACTION
	Commit                    // COMMIT, END
	Rollback                  // ROLLBACK (not ROLLBACK TO SAVEPOINT)
)

// ControlOf recognises transaction control statements by their first words.
// ROLLBACK TO SAVEPOINT is not one: it does not end the transaction.
func ControlOf(sql string) Control {
	f := strings.Fields(strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(sql), ";")))
	if len(f) == 0 {
		return NotControl
	}
	switch f[0] {
	case "BEGIN":
		return Begin
	case "START":
		if len(f) > 1 && f[1] == "TRANSACTION" {
			return Begin
		}
	case "COMMIT", "END":
		return Commit
	case "ROLLBACK":
		if len(f) > 1 && f[1] == "TO" {
			return NotControl
		}
		return Rollback
	}
	return NotControl
}

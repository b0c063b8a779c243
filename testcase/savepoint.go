package testcase

import "strings"

// SavepointOp is what a savepoint statement does.
type SavepointOp string

// Savepoint statements, as SavepointOf reads them.
const (
	SavepointSet      SavepointOp = "SAVEPOINT"
	SavepointRollback SavepointOp = "ROLLBACK TO SAVEPOINT"
	SavepointRelease  SavepointOp = "RELEASE SAVEPOINT"
)

// SavepointOf reads SAVEPOINT name, ROLLBACK [WORK] TO [SAVEPOINT] name and
// RELEASE [SAVEPOINT] name; op is "" for any other statement. Names compare
// case-insensitively (an unquoted name in every DBMS txlab drives).
func SavepointOf(sql string) (op SavepointOp, name string) {
	f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(sql), ";"))
	up := func(i int) string {
		if i < len(f) {
			return strings.ToUpper(f[i])
		}
		return ""
	}
	i := 0
	switch up(0) {
	case "SAVEPOINT":
		op, i = SavepointSet, 1
	case "ROLLBACK":
		i = 1
		if up(i) == "WORK" {
			i++
		}
		if up(i) != "TO" {
			return "", ""
		}
		i++
		if up(i) == "SAVEPOINT" {
			i++
		}
		op = SavepointRollback
	case "RELEASE":
		i = 1
		if up(i) == "SAVEPOINT" {
			i++
		}
		op = SavepointRelease
	default:
		return "", ""
	}
	if i != len(f)-1 {
		return "", ""
	}
	if name = strings.ToLower(strings.Trim(f[i], "`\"")); name == "" {
		return "", ""
	}
	return op, name
}

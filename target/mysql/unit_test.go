package mysql

import (
	"os"
	"reflect"
	"testing"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// TestParseLockWaits reads a status captured from MariaDB 10.11 while
// session 8 waited for a row lock held by session 7.
func TestParseLockWaits(t *testing.T) {
	b, err := os.ReadFile("testdata/innodb_status_mariadb.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := parseLockWaits(string(b)), map[string]bool{"8": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("parseLockWaits = %v, want %v", got, want)
	}
	if got := parseLockWaits("no transactions here"); len(got) != 0 {
		t.Errorf("parseLockWaits(no transactions) = %v", got)
	}
}

// TestClassOf covers the codes no local server can produce (TiDB, MySQL 8)
// and the SQLSTATE fallbacks.
func TestClassOf(t *testing.T) {
	tests := []struct {
		num               uint16
		state             string
		rollbackOnTimeout bool
		class             target.ErrorClass
		rolledBack        bool
	}{
		{1213, "40001", false, target.ClassDeadlock, true},
		{1205, "HY000", false, target.ClassLockTimeout, false},
		{1205, "HY000", true, target.ClassLockTimeout, true},
		{9007, "HY000", false, target.ClassSerialization, true},
		{8002, "HY000", false, target.ClassSerialization, true},
		{1020, "HY000", false, target.ClassSerialization, true},
		{1586, "23000", false, target.ClassDuplicateKey, false},
		{3819, "HY000", false, target.ClassConstraint, false},
		{1142, "42000", false, target.ClassPrivilege, false},
		{1064, "42000", false, target.ClassSyntax, false},
		{1690, "22003", false, target.ClassData, false},
		{1050, "42S01", false, target.ClassExists, false},
		{1051, "42S02", false, target.ClassNoSuchTable, false},
		{1146, "42S02", false, target.ClassNoSuchTable, false},
		{9999, "42S22", false, target.ClassSyntax, false},
		{9999, "23000", false, target.ClassConstraint, false},
		{9999, "HY000", false, target.ClassOther, false},
	}
	for _, tc := range tests {
		tg := &Target{rollbackOnTimeout: tc.rollbackOnTimeout}
		e := &drv.MySQLError{Number: tc.num}
		copy(e.SQLState[:], tc.state)
		class, rb := tg.classOf(e)
		if class != tc.class || rb != tc.rolledBack {
			t.Errorf("classOf(%d %s, rollback_on_timeout=%v) = %s, %v; want %s, %v",
				tc.num, tc.state, tc.rollbackOnTimeout, class, rb, tc.class, tc.rolledBack)
		}
	}
}

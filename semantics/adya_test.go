package semantics_test

import (
	"testing"

	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
)

func TestForbids(t *testing.T) {
	for _, tc := range []struct {
		p     semantics.Promise
		class semantics.Anomaly
		want  bool
	}{
		{semantics.AdyaPromise(target.Serializable), "G2-item", true},
		{semantics.AdyaPromise(target.Serializable), "lost-update", true},
		{semantics.AdyaPromise(target.ReadCommitted), "G-single", false},
		{semantics.AdyaPromise(target.ReadCommitted), "G1b", true},
		{semantics.AdyaPromise(target.RepeatableRead), "lost-update", true},
		{semantics.AdyaPromise(target.RepeatableRead), "G2", false},
		{semantics.Lookup("mariadb", target.RepeatableRead, nil), "lost-update", false},
		{semantics.Lookup("mariadb", target.RepeatableRead, map[string]string{"innodb_snapshot_isolation": "ON"}), "lost-update", true},
		{semantics.Lookup("postgres", target.RepeatableRead, nil), "lost-update", true},
		{semantics.Lookup("postgres", target.RepeatableRead, nil), "G2-item", false},
		{semantics.Lookup("postgres", target.Serializable, nil), "G2-item", true},
	} {
		if got := tc.p.Forbids(tc.class); got != tc.want {
			t.Errorf("%s %s forbids %s = %v, want %v", tc.p.DBMS, tc.p.Level, tc.class, got, tc.want)
		}
	}
}

package bugs

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/report"
)

// TestSuppressionCannotOverReach: with the real corpus, an id suppresses
// the findings of its own defect and no other: PG-SSI-ON-CONFLICT (found
// under WSS's generic rule) matches only WSS findings at serializable whose
// statements its case has; MDEV-26671 (found under MDEV-26642's rule) does
// not match MDEV-26642's findings, and reading it says so; an id's own rule
// matches by its name.
func TestSuppressionCannotOverReach(t *testing.T) {
	s, warnings, err := report.ParseSuppressions("known.txt", strings.NewReader("PG-SSI-ON-CONFLICT\nMDEV-26671\nMDEV-30835\nMySQL #104833\n"), Suppression)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "MDEV-26671's case") || !strings.Contains(warnings[0], "add MDEV-26642") ||
		!strings.Contains(warnings[1], "MySQL #104833 is not in the known-bug corpus (txlab bugs list); it matches only rules named mysql-104833-…") {
		t.Errorf("warnings %q: want one about MDEV-26671 borrowing MDEV-26642's rule, one about MySQL #104833", warnings)
	}
	for _, c := range []struct{ sig, rule, want string }{
		{"wss tx-wss DELETE+INSERT serializable bug [wss-no-serial-order]", "wss-no-serial-order", "PG-SSI-ON-CONFLICT"},
		{"wss tx-wss DELETE+INSERT+UPSERT serializable bug [wss-no-serial-order]", "wss-no-serial-order", "PG-SSI-ON-CONFLICT"},
		{"wss tx-wss UPDATE+UPSERT serializable bug [wss-no-serial-order]", "wss-no-serial-order", ""},
		// A new bug of the same oracle under the same generic rule.
		{"wss tx-wss DELETE+UPDATE serializable bug [wss-no-serial-order]", "wss-no-serial-order", ""},
		{"wss tx-wss INSERT repeatable-read bug [wss-no-serial-order]", "wss-no-serial-order", ""},
		{"troc incorrect-result SELECT repeatable-read bug [mdev-26642-noop-update-view]", "mdev-26642-noop-update-view", ""},
		{"troc incorrect-blocking UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]", "mdev-30835-update-skips-uncommitted-insert", "MDEV-30835"},
		{"troc incorrect-affected UPDATE read-committed bug [mysql-104833-update-skips-locked-row]", "mysql-104833-update-skips-locked-row", "MySQL #104833"},
		{"troc incorrect-affected UPDATE read-committed bug [mdev-26643-update-skips-locked-row]", "mdev-26643-update-skips-locked-row", ""},
	} {
		if got := s.Match(c.sig, c.rule); got != c.want {
			t.Errorf("%s: matched by %q, want %q", c.sig, got, c.want)
		}
	}
}

package wss

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/testcase"
)

// TestOutsideModel: a SKIP LOCKED read (an inconsistent view by design)
// and LOCK TABLE are outside what serial re-runs judge; a locking read of
// any strength, with NOWAIT or not, is inside.
func TestOutsideModel(t *testing.T) {
	for body, want := range map[string]string{
		"1> SELECT * FROM t FOR KEY SHARE SKIP LOCKED;":         "SKIP LOCKED",
		"1> SELECT * FROM t FOR UPDATE skip  locked;":           "SKIP LOCKED",
		"1> BEGIN;\n1> LOCK TABLE t IN SHARE MODE;\n1> COMMIT;": "LOCK",
		"1> SELECT * FROM t FOR NO KEY UPDATE NOWAIT;":          "",
	} {
		c, err := testcase.ParseString("c", "CREATE TABLE t (a INT);\n"+body+"\n")
		if err != nil {
			t.Fatal(err)
		}
		got := outsideModel(c)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%q: outsideModel = %q, want %q", body, got, want)
		}
	}
}

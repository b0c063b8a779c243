package testcase

import (
	"strings"
	"testing"
)

// TestNotUTF8: a case file with a byte that is not UTF-8 is refused with
// its line and byte offset, whatever the byte is (an SJIS or GBK lead
// byte, a Latin-1 letter, a lone continuation byte); UTF-8 of every
// length, a BOM and CRLF lines still read.
func TestNotUTF8(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"sjis-lead", "CREATE TABLE t (a TEXT);\n1> SELECT '\x83\\' ;\n", "x.txn:2: byte 36 (column 12) is not valid UTF-8 (0x83)"},
		{"gbk-lead", "1> INSERT INTO t VALUES ('\xbf\\''), (1);\n", "x.txn:1: byte 26 (column 27) is not valid UTF-8 (0xbf)"},
		{"latin1", "-- isolation: read-committed\r\n1> SELECT 'caf\xe9';\r\n", "x.txn:2: byte 44 (column 15) is not valid UTF-8 (0xe9)"},
		{"in-header", "-- dbms: m\xffariadb\n1> SELECT 1;\n", "x.txn:1: byte 10 (column 11)"},
		{"in-comment", "1> SELECT 1; -- \xc0\xaf\n", "x.txn:1: byte 16"},
		{"truncated", "1> SELECT '\xe6\xbc';\n", "x.txn:1: byte 11"},
		{"surrogate", "1> SELECT '\xed\xa0\x80';\n", "x.txn:1: byte 11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseString("x.txn", tc.text)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line starting %q", err, tc.want)
			}
			if _, err := Parse("x.txn", strings.NewReader(tc.text)); err == nil {
				t.Errorf("Parse accepted it")
			}
		})
	}
	for _, ok := range []string{
		"\ufeffCREATE TABLE t (a TEXT);\r\n1> INSERT INTO t VALUES ('café 漢字 ソ表 😀');\r\n",
		"1> SELECT '丁\\\\';\n", // UTF-8 whose last byte is a GBK lead byte: harmless in UTF-8
	} {
		if _, err := ParseString("ok.txn", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

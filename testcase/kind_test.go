package testcase

import "testing"

func TestSignatureKind(t *testing.T) {
	for sql, want := range map[string]string{
		"INSERT INTO t VALUES (1)":                                    "INSERT",
		"insert into t values (1) on conflict (a) do nothing":         "UPSERT",
		"INSERT INTO t VALUES (1)\nON DUPLICATE KEY UPDATE a = a + 1": "UPSERT",
		"INSERT INTO t SELECT * FROM u":                               "INSERT",
		"REPLACE INTO t VALUES (1)":                                   "REPLACE",
		"  update t set a = 1;":                                       "UPDATE",
		"":                                                            "",
	} {
		if got := SignatureKind(sql); got != want {
			t.Errorf("SignatureKind(%q) = %q, want %q", sql, got, want)
		}
	}
}

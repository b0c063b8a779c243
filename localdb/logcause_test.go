package localdb

import (
	"strings"
	"testing"
)

func TestLogCause(t *testing.T) {
	for _, c := range []struct{ log, want string }{
		{"2026-11-26 19:53:38 0 [Note] InnoDB: Completed initialization of buffer pool\n2026-11-26 19:53:38 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'bogus_var=1'\n2026-11-26 19:53:38 0 [ERROR] Aborting\n",
			"/usr/sbin/mariadbd: unknown variable 'bogus_var=1'"},
		{`2026-11-26 19:53:40.014 GMT [3871] FATAL:  unrecognized configuration parameter "bogus_var"`,
			`unrecognized configuration parameter "bogus_var"`},
		{"2026-11-26 19:53:40.014 GMT [1] LOG:  starting PostgreSQL 15\n", ""},
		{"[2026/11/26 19:00:00.000 +00:00] [FATAL] [main.go:1] [\"invalid config\"]\n", `[main.go:1] ["invalid config"]`},
		{strings.Repeat("x [ERROR] a long message that goes on and on\n", 1) + "y [ERROR] " + strings.Repeat("z", 300), ""},
	} {
		got := logCause(c.log)
		if c.want == "" && strings.Contains(c.log, "[ERROR]") {
			if len(got) > 200 || !strings.HasPrefix(got, "a long message") {
				t.Errorf("long cause %q: want at most 200 characters, the first message first", got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("logCause(%q) = %q, want %q", c.log, got, c.want)
		}
	}
}

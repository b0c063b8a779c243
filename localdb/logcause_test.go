package localdb

import (
	"errors"
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
		{"[2026/11/26 19:00:00.000 +00:00] [FATAL] [main.go:1] [\"invalid config\"]\n", `["invalid config"]`},
		// A harmless error before the fatal one: the fatal one comes first.
		{"[2026/11/26 22:32:28.000 +00:00] [ERROR] [cpu.go:67] [GetCgroupCPU] [error=\"no cpu.max\"]\n[2026/11/26 22:32:28.100 +00:00] [FATAL] [server.go:453] [\"failed to set tidb_no_such_variable\"]\n",
			`["failed to set tidb_no_such_variable"]; [GetCgroupCPU] [error="no cpu.max"]`},
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

// TestPortTaken: the retry sees "address already in use" in the log even
// when the error's one short line has cut it off.
func TestPortTaken(t *testing.T) {
	log := "[ERROR] [cpu.go:67] " + strings.Repeat("cgroup chatter ", 20) + "\n[FATAL] [server.go:453] [\"failed to create the server\"] [stack=\"" + strings.Repeat("goroutine frame ", 20) + "\"] [error=\"listen tcp 127.0.0.1:4000: bind: address already in use\"]\n"
	err := &startError{err: errors.New("localdb: tidb exited during start-up"), log: log}
	if strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("test needs a cause the short line cuts off; got %q", err.Error())
	}
	if !portTaken(err) {
		t.Errorf("portTaken(%q) = false, want true", err.Error())
	}
	if portTaken(&startError{err: errors.New("x"), log: "[FATAL] bad config\n"}) {
		t.Error("portTaken on a bad config = true, want false")
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCheckHistory writes a valid history of n transactions for check.
func writeCheckHistory(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"id":0,"init":true,"ops":["w(1,1)","w(2,2)"]}` + "\n")
	last := map[int]int{1: 1, 2: 2}
	for i := 1; i < n; i++ {
		k := 1 + i%2
		fmt.Fprintf(&b, `{"id":%d,"session":%d,"start":%d,"end":%d,"ops":["r(%d,%d)","w(%d,%d)"]}`+"\n", i, i%8, 10*i, 10*i+5, k, last[k], k, i+2)
		last[k] = i + 2
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckMaxTransactions: a history over --max-transactions is refused
// with exit 2 and one line naming the limit and the flag; one at it is
// checked.
func TestCheckMaxTransactions(t *testing.T) {
	path := writeCheckHistory(t, 30)
	code, out, stderr := txlab(t, "check", "--max-transactions", "29", path)
	want := "txlab: " + path + ": more than 29 transactions: raise --max-transactions to check it (checking takes about 250 MB of memory a million transactions)\n"
	if code != 2 || out != "" || stderr != want {
		t.Errorf("over the limit: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, stderr, want)
	}
	if code, out, stderr := txlab(t, "check", "--max-transactions", "30", path); code != 0 || !strings.Contains(out, "30 transactions, serializable: valid") {
		t.Errorf("at the limit: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, _, stderr := txlab(t, "check", "--max-transactions", "0", path); code != 2 || stderr != "txlab: --max-transactions 0: want at least 1\n" {
		t.Errorf("--max-transactions 0: exit %d, stderr %q", code, stderr)
	}
}

// TestCheckHostileHistories runs txlab check, as a process of its own, on
// histories made to exhaust it — one line of 40 MiB, JSON nested a
// million deep, a history one transaction over the limit — and holds it to
// exit 2, one line on stderr, no Go trace, and little memory.
func TestCheckHostileHistories(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, parts ...string) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range parts {
			if _, err := f.WriteString(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	many := writeCheckHistory(t, 2001)
	for _, c := range []struct {
		name   string
		path   string
		args   []string
		stderr string
	}{
		{"giant-line", write("giant.jsonl", `{"id":1,"ops":[`, strings.Repeat(`"r(1,1)",`, 40<<20/9), `"r(1,1)"]}`+"\n"),
			nil, "line 1: longer than 16 MiB, the longest line a history may have"},
		{"deep-nesting", write("deep.jsonl", `{"id":1,"stmts":`, strings.Repeat("[", 1<<20), strings.Repeat("]", 1<<20), "}\n"),
			nil, "line 1: invalid character '[' exceeded max depth"},
		{"deep-ops", write("deepops.jsonl", `{"id":1,"ops":`, strings.Repeat("[", 1<<20), strings.Repeat("]", 1<<20), "}\n"),
			nil, "line 1: invalid character '[' exceeded max depth"},
		{"over-the-limit", many, []string{"--max-transactions", "2000"}, "more than 2000 transactions: raise --max-transactions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"check", "--model", "serializable"}, c.args...), c.path)
			code, stdout, stderr, rss := txlabProcess(t, args...)
			t.Logf("exit %d, peak RSS %d MiB: %s", code, rss>>20, strings.TrimSpace(stderr))
			if code != 2 || stdout != "" || !strings.Contains(stderr, c.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, c.stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 || strings.Contains(stderr, "goroutine ") {
				t.Errorf("stderr is not one line:\n%s", stderr)
			}
			if rss > 256<<20 {
				t.Errorf("peak RSS %d MiB, want under 256 MiB", rss>>20)
			}
		})
	}
}

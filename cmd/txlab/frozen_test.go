package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// The bound these tests hold txlab to: a case past --hang-timeout, then a
// trivial query the frozen server does not answer for as long, then a
// margin for a loaded machine.
const (
	frozenHang   = 3 * time.Second
	frozenMargin = 6 * time.Second
)

// TestFrozenServer stops the server (SIGSTOP to its process group) under
// each command while it works: the command must end with exit 2 and one
// line saying the server did not answer, within the hang timeout plus a
// few seconds — not wait for the server forever, nor end as if all went
// well.
func TestFrozenServer(t *testing.T) {
	lockWait := func(sleep string) string {
		return `CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 0);
1> BEGIN;
1> UPDATE t SET v = 1 WHERE id = 1;
2> BEGIN;
2> UPDATE t SET v = 2 WHERE id = 1;
1> ` + sleep + `;
1> COMMIT;
2> COMMIT;
`
	}
	hang := frozenHang.String()
	servers := map[localdb.Kind]*localdb.Server{}
	for _, tt := range []struct {
		name  string
		kind  localdb.Kind
		args  func(t *testing.T, dsn string) []string
		after time.Duration // the freeze comes this long after the start
		// summary says the output must show the campaign's summary
		// marked as stopped.
		summary bool
	}{
		{name: "run", kind: localdb.MariaDB, after: time.Second, args: func(t *testing.T, dsn string) []string {
			return []string{"run", "--db", dsn, "--schema", "frozen_run", "--oracle", "none", "--hang-timeout", hang, caseFile(t, lockWait("SELECT SLEEP(2)"))}
		}},
		{name: "fuzz", kind: localdb.MariaDB, after: 3 * time.Second, summary: true, args: func(t *testing.T, dsn string) []string {
			return []string{"fuzz", "--db", dsn, "--schema", "frozen_fuzz", "--duration", "0", "--cases", "1000000", "--isolation", "all", "--hang-timeout", hang, "--out", t.TempDir()}
		}},
		{name: "fuzz-mt", kind: localdb.MariaDB, after: 3 * time.Second, summary: true, args: func(t *testing.T, dsn string) []string {
			return []string{"fuzz", "--db", dsn, "--schema", "frozen_mt", "--oracle", "mt", "--duration", "0", "--cases", "1000000", "--hang-timeout", hang, "--out", t.TempDir()}
		}},
		{name: "reduce", kind: localdb.MariaDB, after: 2 * time.Second, args: func(t *testing.T, dsn string) []string {
			return []string{"reduce", "--db", dsn, "--schema", "frozen_reduce", "--oracle", "wss", "--runs", "200", "--hang-timeout", hang, "--budget", "5m", "../../examples/design-read-committed.txn"}
		}},
		{name: "bugs-test", kind: localdb.MariaDB, after: 2 * time.Second, args: func(t *testing.T, dsn string) []string {
			return []string{"bugs", "test", "--db", dsn, "--schema", "frozen_bugs", "--isolation", "all", "--hang-timeout", hang}
		}},
		{name: "run", kind: localdb.Postgres, after: time.Second, args: func(t *testing.T, dsn string) []string {
			return []string{"run", "--db", dsn, "--schema", "frozen_run", "--oracle", "none", "--hang-timeout", hang, caseFile(t, lockWait("SELECT pg_sleep(2)"))}
		}},
		{name: "fuzz", kind: localdb.Postgres, after: 3 * time.Second, summary: true, args: func(t *testing.T, dsn string) []string {
			return []string{"fuzz", "--db", dsn, "--schema", "frozen_fuzz", "--duration", "0", "--cases", "1000000", "--isolation", "all", "--hang-timeout", hang, "--out", t.TempDir()}
		}},
	} {
		pt := t
		t.Run(string(tt.kind)+"/"+tt.name, func(t *testing.T) {
			// One server of each kind serves the subtests in turn: each
			// thaws it before the next.
			if servers[tt.kind] == nil {
				servers[tt.kind] = frozenServer(pt, tt.kind)
			}
			srv := servers[tt.kind]
			cmd := startTxlab(t, tt.args(t, srv.DSN())...)
			time.Sleep(tt.after)
			if cmd.finished() {
				t.Fatalf("the command ended before the freeze:\nstdout %s\nstderr %s", cmd.stdout(), cmd.stderr())
			}
			thaw := freeze(t, srv)
			frozen := time.Now()
			code, out, stderr, ok := cmd.wait(frozenHang + frozenMargin + 20*time.Second)
			took := time.Since(frozen)
			thaw()
			if !ok {
				t.Fatalf("still running %v after the server froze", took.Round(time.Second))
			}
			t.Logf("exit %d %v after the freeze", code, took.Round(100*time.Millisecond))
			if took > frozenHang+frozenMargin {
				t.Errorf("ended %v after the server froze, want at most --hang-timeout %v + %v", took.Round(100*time.Millisecond), frozenHang, frozenMargin)
			}
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout %s\nstderr %s", code, out, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "txlab: ") || !strings.Contains(last, "did not answer for") || !strings.Contains(last, "127.0.0.1:") {
				t.Errorf("the last stderr line %q does not say the server stopped answering", last)
			}
			if tt.summary && !strings.Contains(out, "(stopped by an error)") {
				t.Errorf("no summary marked as stopped by an error:\n%s", out)
			}
		})
	}
}

// TestRunHangExits2: a case still blocked at --hang-timeout on a server
// that answers is a hang: run shows what ran, marked HANG, and exits 2.
func TestRunHangExits2(t *testing.T) {
	srv := frozenServer(t, localdb.MariaDB)
	c := caseFile(t, `CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 0);
1> BEGIN;
1> UPDATE t SET v = 1 WHERE id = 1;
2> BEGIN;
2> UPDATE t SET v = 2 WHERE id = 1;
`)
	code, out, stderr := txlab(t, "run", "--db", srv.DSN(), "--schema", "hang_run", "--oracle", "none", "--hang-timeout", "2s", c)
	if code != 2 {
		t.Errorf("exit %d, want 2\nstdout %s\nstderr %s", code, out, stderr)
	}
	if !strings.Contains(out, "HANG") || !strings.Contains(out, "2>  UPDATE t SET v = 2 WHERE id = 1;  BLOCKED") {
		t.Errorf("the output does not show what ran and the hang:\n%s", out)
	}
	if !strings.Contains(stderr, "did not finish (HANG) within --hang-timeout 2s") || strings.Contains(stderr, "did not answer") {
		t.Errorf("stderr %q does not say the case hung", stderr)
	}
}

// TestReduceKeepsBudget: the budget bounds the whole reduction, the try
// under way when it runs out included (each try here is 300 runs of the
// case, a few seconds).
func TestReduceKeepsBudget(t *testing.T) {
	srv := frozenServer(t, localdb.MariaDB)
	const budget = 5 * time.Second
	start := time.Now()
	code, _, stderr := txlab(t, "reduce", "--db", srv.DSN(), "--schema", "budget_reduce", "--oracle", "wss", "--runs", "300",
		"--finding", "wss tx-wss INSERT+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]",
		"--budget", budget.String(), "../../examples/design-read-committed.txn")
	took := time.Since(start)
	t.Logf("exit %d in %v: %s", code, took.Round(100*time.Millisecond), stderr)
	switch {
	case code == 0 && strings.Contains(stderr, "the --budget ran out"):
	case code == 2 && strings.Contains(stderr, "the --budget (5s) ran out before the case gave"):
		// A slow machine: the case's own confirmation used the budget.
	default:
		t.Fatalf("exit %d, want the budget to run out: %s", code, stderr)
	}
	if took > budget+2*time.Second {
		t.Errorf("reduce --budget %v took %v", budget, took.Round(100*time.Millisecond))
	}
}

// frozenServer is a server of the test's own: freezing it must not stall
// the other tests.
func frozenServer(t *testing.T, kind localdb.Kind) *localdb.Server {
	t.Helper()
	return localdbtest.Server(t, kind)
}

// freeze stops every process of srv — the server and its children
// (PostgreSQL's backends, each in a process group of its own) — and
// returns the function that resumes them; the test's cleanup resumes them
// in any case, before the server is stopped.
func freeze(t *testing.T, srv *localdb.Server) (thaw func()) {
	t.Helper()
	// The server first: it forks no backend once stopped.
	pids := []int{srv.PID()}
	if err := syscall.Kill(pids[0], syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP: %v", err)
	}
	for _, pid := range descendants(pids[0]) {
		if syscall.Kill(pid, syscall.SIGSTOP) == nil {
			pids = append(pids, pid)
		}
	}
	var once sync.Once
	thaw = func() {
		once.Do(func() {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGCONT)
			}
		})
	}
	t.Cleanup(thaw)
	return thaw
}

// descendants lists the processes under pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if f := strings.Fields(string(b[i+1:])); i > 0 && len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				children[ppid] = append(children[ppid], child)
			}
		}
	}
	var out []int
	for todo := children[pid]; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		out = append(out, p)
	}
	return out
}

// caseFile writes a case file for the test.
func caseFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "case.txn")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// running is a txlab command line running in-process in the background.
type running struct {
	out, errs syncBuffer
	done      chan int
	code      int
	over      bool
}

func startTxlab(t *testing.T, args ...string) *running {
	r := &running{done: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		if !r.over {
			<-r.done // the server thaws first: it ends
		}
	})
	go func() { r.done <- run(ctx, args, &r.out, &r.errs) }()
	return r
}

func (r *running) finished() bool {
	select {
	case r.code = <-r.done:
		r.over = true
	default:
	}
	return r.over
}

// wait waits up to d for the command; ok is false when it is still running.
func (r *running) wait(d time.Duration) (code int, stdout, stderr string, ok bool) {
	if !r.over {
		select {
		case r.code = <-r.done:
			r.over = true
		case <-time.After(d):
			return 0, r.stdout(), r.stderr(), false
		}
	}
	return r.code, r.stdout(), r.stderr(), true
}

func (r *running) stdout() string { return r.out.String() }
func (r *running) stderr() string { return r.errs.String() }

// syncBuffer is a bytes.Buffer that a test may read while the command
// writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

//go:build linux

package localdb

import (
	"syscall"
	"testing"
	"time"
)

// TestStopFrozen: a server stopped by SIGSTOP (and, for PostgreSQL, its
// backends) still stops on Stop, without waiting out the shutdown timeout
// for a signal it cannot act on.
func TestStopFrozen(t *testing.T) {
	for _, kind := range []Kind{MariaDB, Postgres} {
		t.Run(string(kind), func(t *testing.T) {
			s := forTest(t, kind)
			pid := s.PID()
			pids := []int{pid}
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			for _, c := range children(pid) {
				if syscall.Kill(c, syscall.SIGSTOP) == nil {
					pids = append(pids, c)
				}
			}
			t.Cleanup(func() {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGCONT)
				}
			})
			start := time.Now()
			if err := s.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
			if took := time.Since(start); took >= stopTimeout {
				t.Errorf("Stop of a frozen %s took %v: it waited for the shutdown timeout", kind, took.Round(time.Second))
			}
			select {
			case <-s.Done():
			default:
				t.Errorf("the %s process is still there", kind)
			}
		})
	}
}

// children lists pid's child processes.
func children(pid int) []int {
	var out []int
	for _, p := range allPIDs() {
		if ppid, ok := parentOf(p); ok && ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

// Package localdbtest gives tests real throwaway MariaDB and PostgreSQL
// servers from localdb. It is the only place that decides what a test does when a server's
// binaries are missing (skip it, or fail it under CI=true), and it is imported
// only by tests, so the txlab binary does not link the testing package.
package localdbtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
)

// Server starts a server for a test and stops it in t.Cleanup. When the
// binaries are missing it skips the test, or fails it under CI=true (a
// missing server in CI is a setup bug, not a reason to silently test less).
func Server(t testing.TB, kind localdb.Kind, settings ...string) *localdb.Server {
	t.Helper()
	Require(t, kind)
	s, err := localdb.Start(t.Context(), kind, localdb.Options{Settings: settings, Log: t.Output()})
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return s
}

// Require skips the test when kind's binaries are not installed, or fails it
// when the environment has CI=true.
func Require(t testing.TB, kind localdb.Kind) {
	t.Helper()
	if err, fail := localdb.Unavailable(kind); err != nil {
		if fail {
			t.Fatalf("%v (CI=true: a missing server is a failure)", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// Shared is one server for a whole test binary, started in TestMain, so that
// a package's tests do not each pay a server start.
type Shared struct {
	kind   localdb.Kind
	server *localdb.Server
	err    error // why there is no server
}

// StartShared starts a server of kind for a test binary. It never fails
// itself: a missing binary or a failed start is reported by Server to each
// test that asks for it, with Require's policy.
func StartShared(kind localdb.Kind, settings ...string) *Shared {
	sh := &Shared{kind: kind}
	if sh.err, _ = localdb.Unavailable(kind); sh.err != nil {
		return sh
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sh.server, sh.err = localdb.Start(ctx, kind, localdb.Options{Settings: settings})
	return sh
}

// Server returns the shared server, skipping the test when the binaries are
// missing (failing it under CI=true) and failing it when the start failed.
func (sh *Shared) Server(t testing.TB) *localdb.Server {
	t.Helper()
	if sh.server != nil {
		return sh.server
	}
	Require(t, sh.kind)
	t.Fatalf("start %s: %v", sh.kind, sh.err)
	return nil
}

// Stop stops the shared server, if it started.
func (sh *Shared) Stop() {
	if sh.server != nil {
		if err := sh.server.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop %s: %v\n", sh.kind, err)
		}
	}
}

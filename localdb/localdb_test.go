package localdb

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// query runs a one-value query against s with the driver txlab's targets use.
func query(t *testing.T, s *Server, q string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var v string
	if s.Kind() == Postgres {
		conn, err := pgx.Connect(ctx, s.DriverDSN())
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer conn.Close(context.Background())
		// SHOW returns text; VERSION() too.
		if err := conn.QueryRow(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	db, err := sql.Open("mysql", s.DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

func TestStartStop(t *testing.T) {
	tests := []struct {
		kind       Kind
		setting    string
		version    string // substring of SELECT VERSION()
		check      string // query showing the setting took effect
		want       string
		dsnPrefix  string
		dsnSuffix  string
		defaultChk string // a localdb default that must be in effect
		defaultVal string
	}{
		{
			kind: MariaDB, setting: "innodb_snapshot_isolation=ON", version: "MariaDB",
			check: "SELECT @@innodb_snapshot_isolation", want: "1",
			dsnPrefix: "mariadb://root@127.0.0.1:", dsnSuffix: "/",
			defaultChk: "SELECT @@innodb_flush_log_at_trx_commit", defaultVal: "0",
		},
		{
			kind: Postgres, setting: "max_connections=37", version: "PostgreSQL",
			check: "SHOW max_connections", want: "37",
			dsnPrefix: "postgres://txlab@127.0.0.1:", dsnSuffix: "/postgres?sslmode=disable",
			defaultChk: "SHOW deadlock_timeout", defaultVal: "100ms",
		},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			s := forTest(t, tc.kind, tc.setting)
			t.Logf("%s started in %v", tc.kind, time.Since(began))

			if s.Kind() != tc.kind {
				t.Errorf("Kind() = %q, want %q", s.Kind(), tc.kind)
			}
			if d := s.DSN(); !strings.HasPrefix(d, tc.dsnPrefix) || !strings.HasSuffix(d, tc.dsnSuffix) {
				t.Errorf("DSN() = %q, want %s<port>%s", d, tc.dsnPrefix, tc.dsnSuffix)
			}
			if !strings.HasPrefix(filepath.Base(s.Dir()), dirPrefix) {
				t.Errorf("Dir() = %q, want prefix %q", s.Dir(), dirPrefix)
			}
			if v := query(t, s, "SELECT VERSION()"); !strings.Contains(v, tc.version) {
				t.Errorf("VERSION() = %q, want it to contain %q", v, tc.version)
			}
			if v := query(t, s, tc.check); v != tc.want {
				t.Errorf("%s = %q, want %q (setting %q)", tc.check, v, tc.want, tc.setting)
			}
			if v := query(t, s, tc.defaultChk); v != tc.defaultVal {
				t.Errorf("%s = %q, want localdb default %q", tc.defaultChk, v, tc.defaultVal)
			}

			dir, pid := s.Dir(), s.PID()
			began = time.Now()
			if err := s.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			t.Logf("%s stopped in %v", tc.kind, time.Since(began))
			if err := s.Stop(); err != nil {
				t.Errorf("second Stop: %v", err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("temp dir %s still exists after Stop (stat: %v)", dir, err)
			}
			if (procIdentity{pid: pid}).alive() {
				t.Errorf("server pid %d still alive after Stop", pid)
			}
			select {
			case <-s.Done():
			default:
				t.Errorf("Done() not closed after Stop")
			}
		})
	}
}

func TestConcurrentStop(t *testing.T) {
	s := forTest(t, Postgres)
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- s.Stop() }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("Stop: %v", err)
		}
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Errorf("temp dir still exists after concurrent Stops")
	}
}

func TestInvalidSettingFails(t *testing.T) {
	tests := []struct {
		kind    Kind
		setting string
		wantLog string // text only the server's log contains
	}{
		{MariaDB, "txlab_no_such_variable=1", "unknown variable"},
		{Postgres, "txlab_no_such_variable=1", "unrecognized configuration parameter"},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			require(t, tc.kind)
			s, err := Start(t.Context(), tc.kind, Options{Settings: []string{tc.setting}})
			if err == nil {
				s.Stop()
				t.Fatalf("Start with %q succeeded, want an error", tc.setting)
			}
			if !strings.Contains(err.Error(), tc.wantLog) {
				t.Errorf("error does not include the server log (%q):\n%v", tc.wantLog, err)
			}
			var se *startError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a startError", err)
			}
			if _, statErr := os.Stat(filepath.Dir(se.logPath)); !os.IsNotExist(statErr) {
				t.Errorf("temp dir %s left behind after failed Start", filepath.Dir(se.logPath))
			}
		})
	}
}

func TestSettingArgs(t *testing.T) {
	tests := []struct {
		kind     Kind
		settings []string
		want     []string
		wantErr  bool
	}{
		{MariaDB, []string{"innodb_snapshot_isolation=ON", " max_connections = 200 "}, []string{"--innodb_snapshot_isolation=ON", "--max_connections=200"}, false},
		{MariaDB, []string{"--skip-grant-tables"}, []string{"--skip-grant-tables"}, false},
		{MariaDB, []string{"=1"}, nil, true},
		{Postgres, []string{"max_connections=37", "deadlock_timeout=1s"}, []string{"-c", "max_connections=37", "-c", "deadlock_timeout=1s"}, false},
		{Postgres, []string{"fsync"}, nil, true},
		{Postgres, []string{"bad key=1"}, nil, true},
		{Kind("oracle"), []string{"a=b"}, nil, true},
	}
	for _, tc := range tests {
		got, err := settingArgs(tc.kind, tc.settings)
		if (err != nil) != tc.wantErr {
			t.Errorf("settingArgs(%s, %q) error = %v, wantErr %v", tc.kind, tc.settings, err, tc.wantErr)
			continue
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("settingArgs(%s, %q) = %q, want %q", tc.kind, tc.settings, got, tc.want)
		}
	}
}

// TestUserSettingsWin checks that user settings come after localdb's defaults
// on the command line (the later value wins for both servers).
func TestUserSettingsWin(t *testing.T) {
	tests := []struct {
		kind     Kind
		setting  string
		default_ string // localdb's own value for the same setting
	}{
		{MariaDB, "innodb-doublewrite=1", "--innodb-doublewrite=0"},
		{Postgres, "deadlock_timeout=2s", "deadlock_timeout=100ms"},
	}
	for _, tc := range tests {
		extra, err := settingArgs(tc.kind, []string{tc.setting})
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{kind: tc.kind, dir: "/tmp/x", port: 1, extra: extra}
		args := strings.Join(s.serverArgs(), " ")
		d, u := strings.Index(args, tc.default_), strings.LastIndex(args, tc.setting)
		if d < 0 || u < 0 || u < d {
			t.Errorf("%s: want default %q before user setting %q in %q", tc.kind, tc.default_, tc.setting, args)
		}
	}
}

func TestAvailableNamesPackage(t *testing.T) {
	// An empty PATH and no Debian locations: nothing can be found.
	t.Setenv("PATH", t.TempDir())
	saved := [...][]string{debianMariaDBD, debianInstallDB}
	savedGlob := debianPGGlob
	debianMariaDBD, debianInstallDB, debianPGGlob = nil, nil, filepath.Join(t.TempDir(), "*", "bin")
	t.Cleanup(func() { debianMariaDBD, debianInstallDB, debianPGGlob = saved[0], saved[1], savedGlob })

	tests := []struct {
		kind Kind
		want []string
	}{
		{MariaDB, []string{"mariadbd", "mariadb-server-core"}},
		{Postgres, []string{"postgres", "initdb", "postgresql"}},
		{Kind("oracle"), []string{"unknown kind"}},
	}
	for _, tc := range tests {
		err := Available(tc.kind)
		if err == nil {
			t.Errorf("Available(%s) = nil with an empty PATH", tc.kind)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Available(%s) = %q, want it to mention %q", tc.kind, err, w)
			}
		}
	}
}

func TestPGVersionOrder(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "13", "16"} {
		bin := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"postgres", "initdb"} {
			if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\necho '"+p+" (PostgreSQL) "+v+".2'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	saved := debianPGGlob
	debianPGGlob = filepath.Join(root, "*", "bin")
	t.Cleanup(func() { debianPGGlob = saved })
	t.Setenv("PATH", t.TempDir())
	b, err := findBinaries(Postgres, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "16", "bin", "postgres"); b.server != want {
		t.Errorf("server = %s, want the highest version %s", b.server, want)
	}
	// initdb's flags follow the release: --wal-segsize only from 11.
	for _, tc := range []struct {
		dir   string
		major int
		seg   bool
	}{{"16", 16, true}, {"9.6", 9, false}} {
		b, err := findBinaries(Postgres, filepath.Join(root, tc.dir))
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{kind: Postgres, bins: b}
		args := strings.Join(s.initArgs("D", "W"), " ")
		if b.pgMajor != tc.major || strings.Contains(args, "--wal-segsize") != tc.seg {
			t.Errorf("%s: major %d, initdb %s; want major %d, --wal-segsize %v", tc.dir, b.pgMajor, args, tc.major, tc.seg)
		}
	}
}

// TestSweepStale builds directories as a killed txlab would leave them and
// checks that only the abandoned ones go, and only the real server is killed.
func TestSweepStale(t *testing.T) {
	dead := deadIdentity(t)
	tests := []struct {
		name       string
		owner      string // owner.pid content; "" = no file
		oldNoOwner bool   // no owner.pid and older than the grace period
		server     bool   // a process whose command line names the dir
		wantGone   bool
		wantKilled bool
	}{
		{name: "owner dead, server running", owner: dead.String(), server: true, wantGone: true, wantKilled: true},
		{name: "owner dead, no server", owner: dead.String(), wantGone: true},
		{name: "owner alive", owner: selfIdentity().String(), server: true, wantGone: false},
		{name: "pid reused by another process", owner: procIdentity{pid: os.Getpid(), start: 1}.String(), wantGone: true},
		{name: "no owner yet", owner: "", wantGone: false},
		{name: "no owner, old", owner: "", oldNoOwner: true, wantGone: true},
	}
	base := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := os.MkdirTemp(base, dirPrefix)
			if err != nil {
				t.Fatal(err)
			}
			if tc.owner != "" {
				if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(tc.owner+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var srv *exec.Cmd
			var exited chan struct{}
			if tc.server {
				// sh's command line names the dir, like a real server's --datadir.
				srv = exec.Command("/bin/sh", "-c", "sleep 30; : "+dir)
				if err := srv.Start(); err != nil {
					t.Fatal(err)
				}
				exited = make(chan struct{})
				go func() { srv.Wait(); close(exited) }()
				t.Cleanup(func() { srv.Process.Kill(); <-exited })
				st, _ := procStartTime(srv.Process.Pid)
				id := procIdentity{pid: srv.Process.Pid, start: st}
				if err := os.WriteFile(filepath.Join(dir, serverPIDFile), []byte(id.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.oldNoOwner {
				old := time.Now().Add(-2 * orphanGrace)
				if err := os.Chtimes(dir, old, old); err != nil {
					t.Fatal(err)
				}
			}

			sweepStale([]string{base}, t.Output())

			_, statErr := os.Stat(dir)
			if gone := os.IsNotExist(statErr); gone != tc.wantGone {
				t.Errorf("dir gone = %v, want %v", gone, tc.wantGone)
			}
			if srv != nil {
				var killed bool
				select {
				case <-exited:
					killed = true
				case <-time.After(300 * time.Millisecond):
				}
				if killed != tc.wantKilled {
					t.Errorf("server killed = %v, want %v", killed, tc.wantKilled)
				}
			}
		})
	}
}

// deadIdentity returns the identity of a process that has exited.
func deadIdentity(t *testing.T) procIdentity {
	t.Helper()
	c := exec.Command("/bin/true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return procIdentity{pid: c.Process.Pid, start: 1}
}

// TestTemplateCache checks that with CacheTemplates on, servers start from a
// copied template and work, and that release deletes the template.
func TestTemplateCache(t *testing.T) {
	release := CacheTemplates()
	defer release()
	var tmplDir string
	for i := range 2 {
		began := time.Now()
		s := forTest(t, Postgres, "max_connections=41")
		t.Logf("start %d took %v", i+1, time.Since(began))
		if v := query(t, s, "SHOW max_connections"); v != "41" {
			t.Errorf("start %d: max_connections = %q, want 41", i+1, v)
		}
		cache.Lock()
		tm := cache.tmpls[s.cacheKey()]
		cache.Unlock()
		if tm == nil {
			t.Fatalf("start %d: no template while the cache is on", i+1)
		}
		if tmplDir != "" && tm.dir != tmplDir {
			t.Errorf("start %d used template %s, want the first one %s", i+1, tm.dir, tmplDir)
		}
		tmplDir = tm.dir
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(tmplDir); err != nil {
		t.Fatalf("template %s gone before release: %v", tmplDir, err)
	}
	release()
	if _, err := os.Stat(tmplDir); !os.IsNotExist(err) {
		t.Errorf("template %s still exists after release (stat: %v)", tmplDir, err)
	}
	// Without the cache nothing but the server's own directory is created.
	s := forTest(t, Postgres)
	cache.Lock()
	n := len(cache.tmpls)
	cache.Unlock()
	if n != 0 {
		t.Errorf("%d templates exist with the cache off", n)
	}
	_ = s.Stop()
}

// TestParentDeath kills (SIGKILL) a process that owns a server and checks
// that the server dies with it (Pdeathsig) and that the next sweep removes
// the abandoned directory.
func TestParentDeath(t *testing.T) {
	if os.Getenv("LOCALDB_TEST_HELPER") == "1" {
		// Child: start a server, report it, wait to be killed.
		s, err := Start(context.Background(), Postgres, Options{})
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
		fmt.Println("SERVER", s.PID(), s.Dir())
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	require(t, Postgres)
	child := exec.Command(os.Args[0], "-test.run=^TestParentDeath$")
	child.Env = append(os.Environ(), "LOCALDB_TEST_HELPER=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "SERVER %d %s", &pid, &dir); err == nil {
			break
		}
		t.Log("child:", sc.Text())
	}
	if pid == 0 {
		child.Process.Kill()
		child.Wait()
		t.Fatal("child did not report a server")
	}
	server := procIdentity{pid: pid}
	if !server.alive() {
		t.Fatalf("server pid %d not alive while its owner runs", pid)
	}
	child.Process.Kill()
	child.Wait()

	deadline := time.Now().Add(5 * time.Second)
	for server.alive() {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server pid %d survived its owner", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("abandoned dir %s should still exist before the sweep: %v", dir, err)
	}
	sweepStale([]string{filepath.Dir(dir)}, t.Output())
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("sweep left abandoned dir %s (stat: %v)", dir, err)
	}
}

// BenchmarkStartStop measures Start plus Stop, initialising every data
// directory ("fresh") or copying the cached template ("template").
func BenchmarkStartStop(b *testing.B) {
	for _, kind := range []Kind{MariaDB, Postgres} {
		b.Run(string(kind), func(b *testing.B) {
			if err := Available(kind); err != nil {
				b.Skip(err)
			}
			b.Run("fresh", func(b *testing.B) { benchStart(b, kind) })
			b.Run("template", func(b *testing.B) {
				defer CacheTemplates()()
				benchStart(b, kind)
			})
		})
	}
}

func benchStart(b *testing.B, kind Kind) {
	for b.Loop() {
		s, err := Start(b.Context(), kind, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// require and forTest apply localdbtest's rule, which these in-package tests
// cannot import (localdbtest imports localdb).
func require(t testing.TB, kind Kind) {
	t.Helper()
	if err, fail := Unavailable(kind); err != nil {
		if fail {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func forTest(t testing.TB, kind Kind, settings ...string) *Server {
	t.Helper()
	require(t, kind)
	s, err := Start(t.Context(), kind, Options{Settings: settings, Log: t.Output()})
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

package localdb

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Initialising a data directory (mariadb-install-db, initdb) is most of the
// start-up time, about 1 s on an idle machine and several seconds on a busy
// one, while copying a freshly initialised directory takes a fraction of that.
// With CacheTemplates on, the first Start for a given kind, init program and
// init-time settings initialises a pristine "template" (itself a
// txlab-localdb-* directory with owner.pid, so the sweep treats it like any
// other) and every Start copies it.
//
// The cache is opt-in because only the caller knows when no more servers will
// come: without it nothing outlives Stop, with it the templates live until the
// release function runs (or, if the process dies first, until the next sweep).

type template struct {
	dir   string // the txlab-localdb-* directory; data/ inside
	ready chan struct{}
	err   error // valid once ready is closed
}

var cache = struct {
	sync.Mutex
	enabled int // outstanding CacheTemplates calls
	tmpls   map[string]*template
}{tmpls: map[string]*template{}}

// CacheTemplates makes later Starts in this process copy a cached initialised
// data directory instead of initialising one, which roughly halves start-up.
// Call the returned function (once) when no more servers will be started, to
// delete the templates; servers already running are unaffected. Typical use in
// a package whose tests start many servers:
//
//	func TestMain(m *testing.M) {
//		release := localdb.CacheTemplates()
//		code := m.Run()
//		release()
//		os.Exit(code)
//	}
func CacheTemplates() (release func()) {
	cache.Lock()
	cache.enabled++
	cache.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			cache.Lock()
			cache.enabled--
			off := cache.enabled == 0
			cache.Unlock()
			if off {
				dropTemplates()
			}
		})
	}
}

// dropTemplates removes every finished template. A template still being built
// is removed by its builder, which sees that the cache is off.
func dropTemplates() {
	cache.Lock()
	var dirs []string
	for k, t := range cache.tmpls {
		select {
		case <-t.ready:
			if t.dir != "" {
				dirs = append(dirs, t.dir)
			}
			delete(cache.tmpls, k)
		default:
		}
	}
	cache.Unlock()
	for _, d := range dirs {
		_ = removeAll(d)
	}
}

// cacheKey identifies what a template depends on: the init program, the user
// it runs as and the settings fixed at initialisation.
func (s *Server) cacheKey() string {
	key := []string{string(s.kind), s.bins.init}
	if s.cred != nil {
		key = append(key, fmt.Sprintf("uid=%d", s.cred.Uid))
	}
	if s.kind == MariaDB {
		key = append(key, mariadbInitSettings(s.extra)...)
	}
	return strings.Join(key, "\x00")
}

// prepareData fills s.dataDir(): a copy of the cached template when the cache
// is on, else a fresh initialisation.
func (s *Server) prepareData(ctx context.Context, base string) error {
	if s.kind == TiDB {
		return s.tidbPrepare() // unistore lives in memory: nothing to initialise
	}
	key := s.cacheKey()
	cache.Lock()
	if cache.enabled == 0 {
		cache.Unlock()
		return s.initData(ctx, s.dir)
	}
	t := cache.tmpls[key]
	build := t == nil
	if build {
		t = &template{ready: make(chan struct{})}
		cache.tmpls[key] = t
	}
	cache.Unlock()

	if build {
		t.err = s.buildTemplate(ctx, base, t)
		cache.Lock()
		drop := t.err != nil || cache.enabled == 0 // failed, or released meanwhile
		if drop {
			delete(cache.tmpls, key)
		}
		cache.Unlock()
		close(t.ready)
		if t.err != nil {
			if t.dir != "" {
				_ = removeAll(t.dir)
			}
			return t.err // the init itself failed: same result without a template
		}
		defer func() {
			if drop {
				_ = removeAll(t.dir)
			}
		}()
	} else {
		select {
		case <-t.ready:
		case <-ctx.Done():
			return fmt.Errorf("localdb: waiting for %s template: %w", s.kind, context.Cause(ctx))
		}
	}
	if t.err == nil {
		err := copyTree(filepath.Join(t.dir, "data"), s.dataDir(), s.cred)
		if err == nil {
			s.logf("%s data directory copied from template %s", s.kind, t.dir)
			return nil
		}
		// Released meanwhile, or a full disk: start clean.
		s.logf("copy template: %v; initialising instead", err)
		_ = os.RemoveAll(s.dataDir())
	}
	return s.initData(ctx, s.dir)
}

// buildTemplate initialises a template directory next to the server dirs.
func (s *Server) buildTemplate(ctx context.Context, base string, t *template) error {
	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	t.dir = dir
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(selfIdentity().String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	if s.cred != nil {
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fmt.Errorf("localdb: chown %s: %w", dir, err)
		}
	}
	s.logf("building %s template in %s", s.kind, dir)
	return s.initData(ctx, dir)
}

// copyTree copies directory src to dst (which must not exist), keeping
// permission bits (PostgreSQL insists on 0700/0750 for its data directory) and
// giving everything to cred's user when set.
func copyTree(src, dst string, cred *credential) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil {
				return err
			}
			// Mkdir is subject to the umask; the exact mode matters here.
			if err := os.Chmod(target, info.Mode().Perm()); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			if err := copyFile(path, target, info.Mode().Perm()); err != nil {
				return err
			}
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
		default:
			return nil // sockets, fifos: not part of a pristine data dir
		}
		if cred != nil {
			return os.Lchown(target, int(cred.Uid), int(cred.Gid))
		}
		return nil
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm)
}

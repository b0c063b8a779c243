package bugs

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/target"
)

// Recorded is one group of a status header: what bugs test measured on one
// DBMS version ("mariadb-10.11 rc=reproduces rr=not-reproduced").
type Recorded struct {
	DBMS    string                  `json:"dbms"`    // mariadb, postgres, sqlite, …
	Version string                  `json:"version"` // a version prefix: 10.11 matches 10.11.19-MariaDB
	Levels  map[target.Level]string `json:"levels"`
}

// ParseStatus parses a status header: groups separated by ';', each a
// DBMS-VERSION word and LEVEL=STATUS words.
func ParseStatus(s string) ([]Recorded, error) {
	var out []Recorded
	for _, group := range strings.Split(s, ";") {
		words := strings.Fields(group)
		if len(words) == 0 {
			continue
		}
		db, ver, ok := strings.Cut(words[0], "-")
		if !ok || db == "" || ver == "" {
			return nil, fmt.Errorf("status %q: want DBMS-VERSION (e.g. mariadb-10.11) first", strings.TrimSpace(group))
		}
		r := Recorded{DBMS: strings.ToLower(db), Version: ver, Levels: map[target.Level]string{}}
		for _, w := range words[1:] {
			l, st, ok := strings.Cut(w, "=")
			if !ok {
				return nil, fmt.Errorf("status %q: want LEVEL=STATUS, not %q", strings.TrimSpace(group), w)
			}
			level, err := target.ParseLevel(l)
			if err != nil {
				return nil, fmt.Errorf("status %q: %w", strings.TrimSpace(group), err)
			}
			switch st {
			case Reproduces, NotReproduced, Error, Unsupported, Refused:
			default:
				return nil, fmt.Errorf("status %q: unknown status %q (want %s, %s, %s, %s or %s)", strings.TrimSpace(group), st, Reproduces, NotReproduced, Error, Unsupported, Refused)
			}
			r.Levels[level] = st
		}
		out = append(out, r)
	}
	return out, nil
}

// Matches says whether the group was measured on this DBMS and version: the
// server's release (Release) starts with the group's version, followed by
// nothing or a non-digit.
func (r Recorded) Matches(info target.Info) bool { return r.match(info) >= 0 }

// match is how many characters of the server's release the group's version
// covers, -1 when the group is not for this DBMS and version.
func (r Recorded) match(info target.Info) int {
	rel := Release(info.Version)
	if !strings.EqualFold(r.DBMS, info.DBMS) || !strings.HasPrefix(rel, r.Version) {
		return -1
	}
	rest := rel[len(r.Version):]
	if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return -1
	}
	return len(r.Version)
}

// Lookup returns the group of a status header recorded for this DBMS and
// version: of those that match (postgres-15 and postgres-15.18 both match
// 15.18), the one with the longest version; false when none does.
func Lookup(groups []Recorded, info target.Info) (Recorded, bool) {
	best, n := Recorded{}, -1
	for _, g := range groups {
		if m := g.match(info); m > n {
			best, n = g, m
		}
	}
	return best, n >= 0
}

// FormatStatus writes one status group for the measured results of one
// bug, as the status header holds it.
func FormatStatus(dbms, version string, levels []LevelResult) string {
	var b strings.Builder
	b.WriteString(dbms + "-" + version)
	for _, l := range levels {
		fmt.Fprintf(&b, " %s=%s", strings.ToLower(l.Level.Abbrev()), l.Status)
	}
	return b.String()
}

// VersionKey is the version prefix a status group records: the first two
// numeric components of the server's release (10.11 of
// 10.11.19-MariaDB-0+deb12u1, 15.18 of 15.18 (Debian …), 8.5 of TiDB's
// 8.0.11-TiDB-v8.5.6).
func VersionKey(version string) string {
	rel := Release(version)
	if i := strings.Index(rel, "."); i >= 0 {
		if j := strings.Index(rel[i+1:], "."); j >= 0 {
			return rel[:i+1+j]
		}
	}
	return rel
}

// Release is the DBMS's own release number in a server version string: its
// leading digits and dots (10.11.19 of 10.11.19-MariaDB-0+deb12u1, 15.18 of
// 15.18 (Debian …)), from the first digit (23.1.11 of CockroachDB CCL
// v23.1.11 …), except for TiDB, whose VERSION() starts with the MySQL version
// it speaks (8.5.6 of 8.0.11-TiDB-v8.5.6).
func Release(version string) string {
	if _, v, ok := strings.Cut(version, "-TiDB-v"); ok {
		version = v
	}
	version = strings.TrimLeftFunc(version, func(r rune) bool { return r < '0' || r > '9' })
	end := 0
	for end < len(version) && (version[end] == '.' || version[end] >= '0' && version[end] <= '9') {
		end++
	}
	return strings.TrimRight(version[:end], ".")
}

// Record returns a case file's text with its status header holding group
// (a FormatStatus line) in place of any group of the same DBMS and version,
// beside those of other versions (postgres-10.23 and postgres-18.4 each keep
// theirs); the groups are sorted by DBMS and version. A case without a status
// header gets one after its last header line.
func Record(text, group string) (string, error) {
	key, _, _ := strings.Cut(group, " ")
	lines := strings.SplitAfter(text, "\n")
	lastHeader := -1
	for i, ln := range lines {
		body, ok := strings.CutPrefix(strings.TrimRight(ln, "\r\n"), "-- ")
		if !ok {
			break
		}
		k, v, ok := strings.Cut(body, ":")
		if !ok || strings.ContainsAny(k, " \t") {
			break
		}
		lastHeader = i
		if k != "status" {
			continue
		}
		groups := []string{group}
		for _, g := range strings.Split(v, ";") {
			if g = strings.TrimSpace(g); g != "" && !strings.HasPrefix(g, key+" ") && g != key {
				groups = append(groups, g)
			}
		}
		slices.SortStableFunc(groups, compareGroups)
		lines[i] = "-- status: " + strings.Join(groups, "; ") + "\n"
		return strings.Join(lines, ""), nil
	}
	if lastHeader < 0 {
		return "", fmt.Errorf("no header lines")
	}
	lines[lastHeader] += "-- status: " + group + "\n"
	return strings.Join(lines, ""), nil
}

// compareGroups orders status groups by DBMS, then by version, numerically
// (postgres-9.6 before postgres-10.23).
func compareGroups(a, b string) int {
	ka, _, _ := strings.Cut(a, " ")
	kb, _, _ := strings.Cut(b, " ")
	da, va, _ := strings.Cut(ka, "-")
	db, vb, _ := strings.Cut(kb, "-")
	if c := strings.Compare(strings.ToLower(da), strings.ToLower(db)); c != 0 {
		return c
	}
	return compareVersions(va, vb)
}

// compareVersions compares dotted versions component by component, numbers
// as numbers.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil {
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
		} else if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(pa), len(pb))
}

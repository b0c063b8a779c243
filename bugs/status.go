package bugs

import (
	"fmt"
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
// version starts with the group's, followed by nothing or a non-digit.
func (r Recorded) Matches(info target.Info) bool {
	if !strings.EqualFold(r.DBMS, info.DBMS) || !strings.HasPrefix(info.Version, r.Version) {
		return false
	}
	rest := info.Version[len(r.Version):]
	return rest == "" || rest[0] < '0' || rest[0] > '9'
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

// VersionKey is the version prefix a status group records: the server
// version's first two numeric components (10.11 of 10.11.19-MariaDB, 15.18
// of 15.18 (Debian …)).
func VersionKey(version string) string {
	end, dots := 0, 0
	for end < len(version) {
		ch := version[end]
		if ch == '.' {
			if dots++; dots == 2 {
				break
			}
		} else if ch < '0' || ch > '9' {
			break
		}
		end++
	}
	return strings.TrimSuffix(version[:end], ".")
}

// Record returns a case file's text with its status header holding group
// (a FormatStatus line) in place of any group of the same DBMS and version;
// a case without a status header gets one after its last header line.
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
		var kept []string
		for _, g := range strings.Split(v, ";") {
			if g = strings.TrimSpace(g); g != "" && !strings.HasPrefix(g, key+" ") && g != key {
				kept = append(kept, g)
			}
		}
		lines[i] = "-- status: " + strings.Join(append(kept, group), "; ") + "\n"
		return strings.Join(lines, ""), nil
	}
	if lastHeader < 0 {
		return "", fmt.Errorf("no header lines")
	}
	lines[lastHeader] += "-- status: " + group + "\n"
	return strings.Join(lines, ""), nil
}

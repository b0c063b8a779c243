package report

import (
	"net/url"
	"slices"
	"strings"

	"github.com/txlab/txlab/target"
)

// ShownSpec is a --db spec as txlab writes it down (bundles, tables,
// progress): a URL's password, in its user part or its query, is left out
// (as xxxxx, which ReadReplay recognises to ask for the password).
func ShownSpec(spec string) string {
	if !strings.Contains(spec, "://") {
		return spec
	}
	u, err := url.Parse(spec)
	if err != nil {
		// Unreadable as a URL: everything up to the host could be a secret.
		scheme, _, _ := strings.Cut(spec, "://")
		return scheme + "://…"
	}
	q := u.Query()
	changed := false
	for k := range q {
		if strings.Contains(strings.ToLower(k), "pass") {
			q[k] = []string{"xxxxx"}
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// TargetDB is what a finding's bundle records of the target (report.json's
// db, report.txt's target line): the --db spec as given, shown
// (ShownSpec), the server it resolved to, and the throwaway server's
// settings.
func TargetDB(spec string, info target.Info, settings []string) *DB {
	return &DB{Spec: ShownSpec(spec), DBMS: info.DBMS, Version: info.Version, Settings: slices.Clone(settings)}
}

// CommonReplay are the txlab run flags that reproduce a finding made with
// these flags (Writer.Replay): the target as given, the throwaway server's
// settings and the judging flags; each bundle adds its level and oracle
// (ReplayFlags).
func CommonReplay(spec string, settings []string, model string, strict bool) []string {
	flags := []string{"--db", ShownSpec(spec)}
	for _, kv := range settings {
		flags = append(flags, "--set", kv)
	}
	if model != "" {
		flags = append(flags, "--model", model)
	}
	if strict {
		flags = append(flags, "--strict")
	}
	return flags
}

package main

import (
	"net/url"
	"slices"
	"strings"

	"github.com/txlab/txlab/cmd/txlab/internal/registry"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
)

// splitDB splits a --db value into its targets: bugs test takes several,
// comma-separated (postgres@10,postgres@18,tidb). A URL holds no comma in
// practice, so a single URL stays one target.
func splitDB(db string) []string {
	var out []string
	for _, s := range strings.Split(db, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// shownSpec is a --db spec as txlab writes it down (bundles, tables,
// progress): a URL's password, in its user part or its query, is left out.
func shownSpec(spec string) string {
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

// targetRecord is what a finding's bundle records of the target (report.json's
// db, report.txt's target line): the spec as given and the server it
// resolved to, with the throwaway server's settings.
func (g *globalFlags) targetRecord(info target.Info) *report.DB {
	return &report.DB{Spec: shownSpec(g.db), DBMS: info.DBMS, Version: info.Version, Settings: slices.Clone(g.settings)}
}

// replayFlags are the txlab run flags that reproduce a finding made with
// these flags (the bundle's report.json replay and case.txn's replay
// header): the target as given, the throwaway server's settings and the
// judging flags; each bundle adds its level and oracle.
func (g *globalFlags) replayFlags(c registry.Common) []string {
	flags := []string{"--db", shownSpec(g.db)}
	for _, kv := range g.settings {
		flags = append(flags, "--set", kv)
	}
	if c.Model != "" {
		flags = append(flags, "--model", string(c.Model))
	}
	if c.Strict {
		flags = append(flags, "--strict")
	}
	return flags
}

package report

import (
	"encoding/json"

	"github.com/txlab/txlab/convert/upstream"
)

// upstreamFiles are the bundle's case written for the DBMS's developers
// (package upstream): an isolation-tester spec, a mysql-test file, a
// script for one terminal per connection and the bug report to paste.
// They are made from the bundle's case and its schedule, so a reduced
// bundle's describe the reduced case.
func upstreamFiles(b *Bundle, db *DB) map[string][]byte {
	if b.Case == nil {
		return nil
	}
	f := upstream.Finding{Level: b.Finding.Isolation, Kind: b.Finding.Kind, Summary: b.Finding.Summary, Rule: b.Finding.Rule, Case: b.Case}
	if db != nil {
		f.DBMS, f.Version, f.Settings, f.Server = db.DBMS, db.Version, db.Settings, db.Server
	}
	if b.Schedule != nil {
		f.Events = b.Schedule.Events
	}
	if js, err := json.Marshal(b.Details); err == nil && string(js) != "null" {
		f.Details = js
	}
	return upstream.Files(f)
}

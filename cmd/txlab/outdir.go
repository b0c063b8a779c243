package main

import (
	"fmt"

	"github.com/txlab/txlab/report"
)

// checkOut says, before a campaign starts, when its --out directory cannot
// take a file (read-only, not writable by the user, under a file): the
// bundles are written as the findings come and the summary at the end, so
// the fault was found only after the whole --duration had run. A disk that
// fills during the campaign is still said when a write fails. A directory
// that does not exist yet is not made (a campaign that finds nothing writes
// none): the nearest existing directory above it must take a file instead.
func checkOut(dir string) error {
	if dir == "" {
		return nil
	}
	if err := report.Writable(dir); err != nil {
		return fmt.Errorf("--out %s: cannot write there (%w); give another --out", dir, err)
	}
	return nil
}

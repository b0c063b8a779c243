// Package buildinfo is what a txlab binary knows of its own build: the
// module version and the VCS revision `go build` stamps, for txlab
// version and --version and for the bundles that name the txlab that
// found them.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Identity is a build's version (a tagged release under `go install
// …@vX`, else the version it was given) and the VCS revision `go build`
// stamps in a checkout.
type Identity struct {
	Version  string
	Revision string
	Modified bool
}

// Read is this binary's identity; version is the one set at build time
// ("dev" unless -ldflags set another), which a module version replaces.
func Read(version string) Identity {
	id := Identity{Version: version}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return id
	}
	if id.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		id.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			id.Revision = s.Value
		case "vcs.modified":
			id.Modified = s.Value == "true"
		}
	}
	return id
}

// String is the identity on one line: "v1.2.3", "dev (revision 0b69b1a2c3d4)"
// or "dev (revision 0b69b1a2c3d4, modified)".
func (id Identity) String() string {
	if id.Revision == "" {
		return id.Version
	}
	rev := id.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if id.Modified {
		return fmt.Sprintf("%s (revision %s, modified)", id.Version, rev)
	}
	return fmt.Sprintf("%s (revision %s)", id.Version, rev)
}

package main

import (
	"strings"
	"testing"
)

func TestIdentityString(t *testing.T) {
	for _, c := range []struct {
		id   identity
		want string
	}{
		{identity{version: "dev"}, "dev"},
		{identity{version: "v1.2.3"}, "v1.2.3"},
		{identity{version: "dev", revision: "0b69b1a2c3d4e5f60718293a4b5c6d7e8f901234"}, "dev (revision 0b69b1a2c3d4)"},
		{identity{version: "v0.0.0-2026", revision: "abc", modified: true}, "v0.0.0-2026 (revision abc, modified)"},
	} {
		if got := c.id.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.id, got, c.want)
		}
	}
}

// TestVersionFlag: --version and `txlab version` name the same build.
func TestVersionFlag(t *testing.T) {
	code, out, errOut := txlab(t, "--version")
	if code != 0 {
		t.Fatalf("--version: exit %d, %q", code, errOut)
	}
	want := "txlab " + buildIdentity().String() + "\n"
	if out != want {
		t.Errorf("--version printed %q, want %q", out, want)
	}
	code, out2, _ := txlab(t, "version")
	if code != 0 || !strings.HasPrefix(out2, strings.TrimSuffix(want, "\n")+" (go") {
		t.Errorf("version printed %q (exit %d), want it to start with %q", out2, code, strings.TrimSuffix(want, "\n"))
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/txlab/txlab/internal/buildinfo"
)

// TestVersionFlag: --version and `txlab version` name the same build.
func TestVersionFlag(t *testing.T) {
	code, out, errOut := txlab(t, "--version")
	if code != 0 {
		t.Fatalf("--version: exit %d, %q", code, errOut)
	}
	want := "txlab " + buildinfo.Read(version).String() + "\n"
	if out != want {
		t.Errorf("--version printed %q, want %q", out, want)
	}
	code, out2, _ := txlab(t, "version")
	if code != 0 || !strings.HasPrefix(out2, strings.TrimSuffix(want, "\n")+" (go") {
		t.Errorf("version printed %q (exit %d), want it to start with %q", out2, code, strings.TrimSuffix(want, "\n"))
	}
}

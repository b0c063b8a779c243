package buildinfo

import "testing"

func TestIdentityString(t *testing.T) {
	for _, c := range []struct {
		id   Identity
		want string
	}{
		{Identity{Version: "dev"}, "dev"},
		{Identity{Version: "v1.2.3"}, "v1.2.3"},
		{Identity{Version: "dev", Revision: "0b69b1a2c3d4e5f60718293a4b5c6d7e8f901234"}, "dev (revision 0b69b1a2c3d4)"},
		{Identity{Version: "v0.0.0-2026", Revision: "abc", Modified: true}, "v0.0.0-2026 (revision abc, modified)"},
	} {
		if got := c.id.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.id, got, c.want)
		}
	}
}

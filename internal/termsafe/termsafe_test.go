package termsafe

import "testing"

func TestEscape(t *testing.T) {
	for _, c := range []struct {
		name, in, line, text string
	}{
		{"plain", "SELECT 'a\\b' FROM t", "SELECT 'a\\b' FROM t", "SELECT 'a\\b' FROM t"},
		{"empty", "", "", ""},
		{"unicode kept", "héllo 世界 ✓", "héllo 世界 ✓", "héllo 世界 ✓"},
		{"tab kept", "a\tb", "a\tb", "a\tb"},
		{"newline", "a\nb", `a\x0ab`, "a\nb"},
		{"ESC CSI", "\x1b[2Jx", `\x1b[2Jx`, `\x1b[2Jx`},
		{"OSC 52", "\x1b]52;c;UFdORUQ=\x07", `\x1b]52;c;UFdORUQ=\x07`, `\x1b]52;c;UFdORUQ=\x07`},
		{"CR", "RED\rCR", `RED\x0dCR`, `RED\x0dCR`},
		{"NUL", "a\x00b", `a\x00b`, `a\x00b`},
		{"DEL", "a\x7fb", `a\x7fb`, `a\x7fb`},
		{"C1 CSI", "\u009b31m", `\u009b31m`, `\u009b31m`},
		{"C1 bounds", "\u0080\u009f\u00a0", `\u0080\u009f` + "\u00a0", `\u0080\u009f` + "\u00a0"},
		{"invalid UTF-8", "a\xffb\xc2", `a\xffb\xc2`, `a\xffb\xc2`},
		{"raw C1 byte", "\x9b[2J", `\x9b[2J`, `\x9b[2J`},
		{"bidi override", "a\u202eb\u2066c\u200fd\u061ce", `a\u202eb\u2066c\u200fd\u061ce`, `a\u202eb\u2066c\u200fd\u061ce`},
		{"bidi neighbours kept", "\u2029\u202f\u2065\u206a", "\u2029\u202f\u2065\u206a", "\u2029\u202f\u2065\u206a"},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("%s: Line(%q) = %q, want %q", c.name, c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("%s: Text(%q) = %q, want %q", c.name, c.in, got, c.text)
		}
		for _, out := range []string{Line(c.in), Text(c.in)} {
			for _, r := range out {
				if (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0xfffd || r >= 0x202a && r <= 0x202e {
					t.Errorf("%s: output %q keeps control %U", c.name, out, r)
				}
			}
		}
	}
}

func TestCleanNoCopy(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = Line("ok, 1 row: (1, a)") }); n != 0 {
		t.Errorf("Line of clean text allocates %v times", n)
	}
}

func TestBidi(t *testing.T) {
	for in, want := range map[string]string{
		"plain \x1b text":             "plain \x1b text",
		"SELECT 'a\u202e' -- \u2066x": `SELECT 'a\u202e' -- \u2066x`,
		"\u200f\u061c":                `\u200f\u061c`,
		"\xff keeps bytes":            "\xff keeps bytes",
		"\xff\u202e":                  "\xff" + `\u202e`,
	} {
		if got := Bidi(in); got != want {
			t.Errorf("Bidi(%q) = %q, want %q", in, got, want)
		}
	}
}

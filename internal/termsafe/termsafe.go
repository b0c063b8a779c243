// Package termsafe makes untrusted text (a case file's statements, a
// database's values, a server's error messages, file names) safe to print
// on a terminal: no byte of it can move the cursor, clear the screen, set
// the window title or write the clipboard (OSC 52).
//
// Every control character becomes a visible Go-style escape: a C0 control
// or DEL is \xNN (ESC is \x1b, BEL \x07, CR \x0d), a C1 control
// (U+0080–U+009F, such as U+009B CSI) is \u0080…\u009f, a bidirectional
// control (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) is \uNNNN,
// and a byte that is not valid UTF-8 is \xNN. Everything else, backslashes included, is kept
// as it is, so ordinary text prints unchanged (and costs no copy).
//
// Apply it to the untrusted parts of a line only, never to a whole output
// stream: txlab's own progress line redraws itself with \r and ANSI codes.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// Line is s safe to print as one field of one line: '\n' is escaped too
// (as \x0a); only '\t' is kept.
func Line(s string) string { return escape(s, false) }

// Text is s safe to print as text of several lines: '\n' and '\t' are
// kept, every other control character is escaped.
func Text(s string) string { return escape(s, true) }

// clean reports whether s needs no escaping.
func clean(s string, newlines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if needsEscape(rune(c), newlines) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || needsEscape(r, newlines) {
			return false
		}
		i += n
	}
	return true
}

// needsEscape reports whether r is a control character to escape: C0
// (but '\t', and '\n' where newlines are kept), DEL or C1.
func needsEscape(r rune, newlines bool) bool {
	switch {
	case r == '\t', r == '\n' && newlines:
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case isBidi(r):
		// Bidirectional controls reorder what follows them on the line
		// ("Trojan Source"): a case shown with U+202E reads otherwise
		// than it runs.
		return true
	}
	return false
}

const hex = "0123456789abcdef"

func escape(s string, newlines bool) string {
	if clean(s, newlines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if needsEscape(rune(c), newlines) {
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		case needsEscape(r, newlines):
			writeU(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Bidi escapes only the bidirectional controls of s (as Line does), for
// text a browser shows: an HTML page escapes markup, but a U+202E in a
// case would still reorder the line it is on.
func Bidi(s string) string {
	if !strings.ContainsFunc(s, isBidi) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isBidi(r) {
			writeU(&b, r)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// writeU writes r, a rune of the Basic Multilingual Plane, as \uNNNN.
func writeU(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
}

// Package english writes counts as people read them: "1 row", "2 rows".
package english

import "strconv"

// S is the plural suffix for n things: "" for one, else "s".
func S(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Plural is n and noun, the noun plural (with an s) unless n is one.
func Plural(n int, noun string) string {
	return strconv.Itoa(n) + " " + noun + S(n)
}

package editdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"postgres", "postgres", 0}, {"postgress", "postgres", 1},
		{"SELEC", "SELECT", 1}, {"mariadb", "maraidb", 2}, {"", "abc", 3}, {"kitten", "sitting", 3},
	} {
		if got := Levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

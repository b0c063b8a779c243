// Package editdist measures how far apart two short words are, for the
// "did you mean" of an error message.
package editdist

// Levenshtein is the Levenshtein distance between a and b, in bytes: the
// words compared (targets, SQL keywords) are ASCII.
func Levenshtein(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

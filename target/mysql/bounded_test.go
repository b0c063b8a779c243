package mysql

import (
	"errors"
	"testing"
)

// packet is a MySQL packet header for a payload of n bytes.
func packet(n int) []byte { return []byte{byte(n), byte(n >> 8), byte(n >> 16), 0} }

// TestBoundedScan: the scan follows packets across reads of any size,
// joins a packet's 0xffffff pieces, and refuses only a logical packet over
// the bound.
func TestBoundedScan(t *testing.T) {
	const full = 0xffffff
	stream := func(sizes ...int) []byte {
		var b []byte
		for _, n := range sizes {
			b = append(b, packet(n)...)
			b = append(b, make([]byte, n)...)
		}
		return b
	}
	for _, tt := range []struct {
		name  string
		max   int64
		sizes []int
		want  bool // refused
	}{
		{"small packets", 1 << 20, []int{10, 0, 300, 1 << 19}, false},
		{"one over", 1 << 20, []int{10, 1<<20 + 1}, true},
		{"pieces under together", 2 * full, []int{full, 5, 100}, false},
		{"pieces over together", full + 10, []int{full, 11}, true},
		{"a piece then an empty end", full, []int{full, 0, 7}, false},
	} {
		for _, chunk := range []int{1, 3, 4096, 1 << 30} {
			c := &boundedConn{max: tt.max}
			b := stream(tt.sizes...)
			var err error
			for len(b) > 0 && err == nil {
				n := min(chunk, len(b))
				err = c.scan(b[:n])
				b = b[n:]
			}
			oversized.Store(0)
			if got := errors.Is(err, errOversize); got != tt.want {
				t.Errorf("%s, reads of %d: refused %v, want %v (%v)", tt.name, chunk, got, tt.want, err)
			}
		}
	}
}

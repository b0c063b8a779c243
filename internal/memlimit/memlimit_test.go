package memlimit

import "testing"

// TestLimit: the default, or three quarters of a smaller machine.
func TestLimit(t *testing.T) {
	for avail, want := range map[int64]int64{0: Default, 64 << 30: Default, 1 << 30: 768 << 20} {
		if got := limit(avail); got != want {
			t.Errorf("limit(%d) = %d, want %d", avail, got, want)
		}
	}
	if available() < 0 {
		t.Error("negative memory")
	}
}

package crash

import (
	"errors"
	"strings"
	"testing"
)

// TestCallAndDo: a panic of any kind comes back as one *Error naming the
// line that panicked; a function that returns is untouched.
func TestCallAndDo(t *testing.T) {
	var nilMap map[string]int
	for _, tc := range []struct {
		name string
		fn   func() error
		want string // in the message; "" for no error
	}{
		{"returns", func() error { return nil }, ""},
		{"error", func() error { return errors.New("plain") }, "plain"},
		{"panic-string", func() error { panic("boom\nsecond line") }, "internal error: boom second line (at crash.TestCallAndDo"},
		{"nil-map", func() error { nilMap["x"] = 1; return nil }, "assignment to entry in nil map"},
		{"index", func() error { s := []int{}; _ = s[len(nilMap)+1]; return nil }, "index out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Do(tc.fn)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line with %q", err, tc.want)
			}
			if _, isCrash := err.(*Error); isCrash != (tc.name != "error") {
				t.Errorf("err is a %T", err)
			}
			if e, ok := err.(*Error); ok && !strings.Contains(e.Where, "crash_test.go:") {
				t.Errorf("where %q, want the test's line", e.Where)
			}
		})
	}
	v, err := Call(func() (int, error) { panic(7) })
	if v != 0 || err == nil || !strings.Contains(err.Error(), "internal error: 7") {
		t.Errorf("Call: %d, %v", v, err)
	}
}

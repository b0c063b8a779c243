package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
		msg  string
	}{
		{"no error", nil, 0, ""},
		{"no bug", Findings(0), 0, ""},
		{"bugs", Findings(2), 1, "2 findings with verdict bug"},
		{"fault", Fault(errors.New("server gone")), 2, "server gone"},
		{"wrapped", fmt.Errorf("worker 2: %w", &Error{Code: 1, Err: errors.New("violated")}), 1, "worker 2: violated"},
		{"plain error", errors.New("boom"), 2, "boom"},
		{"said already", &Error{Code: 2}, 2, "exit status 2"},
	} {
		if got := Of(tc.err); got != tc.want {
			t.Errorf("%s: Of = %d, want %d", tc.name, got, tc.want)
		}
		if tc.err != nil && tc.err.Error() != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.name, tc.err.Error(), tc.msg)
		}
	}
}

package postgres

import (
	"fmt"
	"testing"

	"github.com/txlab/txlab/target/targettest"
)

func TestBounded(t *testing.T) {
	targettest.Bounded(t, open(t, "txlab_bounded"), func(n int) string { return fmt.Sprintf("REPEAT('v', %d)", n) })
}

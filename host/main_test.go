package host_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// goroutine the host starts ends with Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

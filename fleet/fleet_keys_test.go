package fleet

import (
	"testing"

	"github.com/cellhost/cellhost/internal/bucketkey"
)

// TestKeys_NotReserved: cellhost's own keys never fall under celld's
// reserved prefixes.
func TestKeys_NotReserved(t *testing.T) {
	for _, k := range []string{SecretKey, DeploymentKey("20260101T000000.000Z-abcd0123")} {
		if bucketkey.IsReserved(k) {
			t.Errorf("%s is under a prefix reserved for celld", k)
		}
	}
}

package s3store_test

import (
	"os"
	"testing"
)

// TestMain keeps every test off the EC2 instance metadata service: tests
// never send traffic off the machine.
func TestMain(m *testing.M) {
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	os.Exit(m.Run())
}

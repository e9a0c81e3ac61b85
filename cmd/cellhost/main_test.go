package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// sharedBin is the binary the fleet tests share (built once per test
// binary run, removed by TestMain).
var sharedBin struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// TestMain keeps every test off the EC2 instance metadata service (tests
// never send traffic off the machine) and removes the shared binary.
func TestMain(m *testing.M) {
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	code := m.Run()
	if sharedBin.dir != "" {
		os.RemoveAll(sharedBin.dir)
	}
	os.Exit(code)
}

// fleetBinary builds the real binary once for every fleet test.
func fleetBinary(t *testing.T) string {
	t.Helper()
	sharedBin.once.Do(func() {
		sharedBin.dir, sharedBin.err = os.MkdirTemp("", "cellhost-fleet-bin-")
		if sharedBin.err != nil {
			return
		}
		sharedBin.path = filepath.Join(sharedBin.dir, "cellhost")
		sharedBin.out, sharedBin.err = exec.Command("go", "build", "-o", sharedBin.path, ".").CombinedOutput()
	})
	if sharedBin.err != nil {
		t.Fatalf("go build: %v\n%s", sharedBin.err, sharedBin.out)
	}
	return sharedBin.path
}

package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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

// The tests of real processes that run beside each other go through two
// gates of this package instead of testing's -test.parallel bound alone:
//
//   - running holds a place for each such test while it runs, at most
//     -test.parallel of them (by default GOMAXPROCS, as testing's own bound);
//   - leaseLane lets one test timed by leases (a 2 s TTL: a killed, stopped
//     or fenced owner, a handover, an outage) run at a time, as when they
//     were sequential, but beside the other process tests instead of alone
//     before them (more of them at once on a 2-core machine made one flaky).
//
// A test waiting for the lease lane holds no place, so the others go on;
// testing's own bound is raised past the number of tests (TestMain), since
// under it a test blocked on the lane would count as running.
var (
	running   chan struct{}
	leaseLane sync.Mutex
)

// parallel is t.Parallel for a test of real processes with its own ports,
// directories and bucket: it runs beside the others, -test.parallel at most.
func parallel(t *testing.T) {
	parallel(t)
	running <- struct{}{}
	t.Cleanup(func() { <-running })
}

// leaseTimed is parallel for a test whose checks are timed by leases: it
// also waits for the lease lane, so no two such tests run at once.
func leaseTimed(t *testing.T) {
	parallel(t)
	leaseLane.Lock()
	running <- struct{}{}
	t.Cleanup(func() {
		<-running
		leaseLane.Unlock()
	})
}

// TestMain keeps every test off the EC2 instance metadata service (tests
// never send traffic off the machine), sets up the gates of parallel and
// leaseTimed, and removes the shared binary.
func TestMain(m *testing.M) {
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	flag.Parse()
	n := runtime.GOMAXPROCS(0) // testing's default for -test.parallel
	if f := flag.Lookup("test.parallel"); f != nil {
		if v, err := strconv.Atoi(f.Value.String()); err == nil && v > 0 {
			n = v
		}
	}
	running = make(chan struct{}, n)
	flag.Set("test.parallel", "1024") // the gates above bound the tests
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

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
	t.Parallel()
	running <- struct{}{}
	t.Cleanup(func() { <-running })
}

// leaseTimed is parallel for a test whose checks are timed by leases: it
// also waits for the lease lane, so no two such tests run at once.
func leaseTimed(t *testing.T) {
	t.Parallel()
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
	// A whole run needs the binary: build it while the first tests (which
	// run in this process) go on, rather than when the first process test
	// asks for it. A run narrowed with -run builds it on demand.
	var prebuilt sync.WaitGroup
	if f := flag.Lookup("test.run"); !testing.Short() && f != nil && f.Value.String() == "" {
		prebuilt.Go(buildShared)
	}
	code := m.Run()
	prebuilt.Wait()
	if sharedBin.dir != "" {
		os.RemoveAll(sharedBin.dir)
	}
	os.Exit(code)
}

// buildShared builds the real binary, once per test binary run. -trimpath
// (as release/build.sh builds) keeps the checkout's directory out of the
// build cache's keys: a fresh clone, or another worktree, reuses what an
// earlier run on the machine compiled of the module's unchanged packages
// (goja, wazero, jsapi, ...) instead of compiling them all again (4 min of
// this package's wall time at load 30 without it).
func buildShared() {
	sharedBin.once.Do(func() {
		sharedBin.dir, sharedBin.err = os.MkdirTemp("", "cellhost-fleet-bin-")
		if sharedBin.err != nil {
			return
		}
		sharedBin.path = filepath.Join(sharedBin.dir, "cellhost")
		sharedBin.out, sharedBin.err = exec.Command("go", "build", "-trimpath", "-o", sharedBin.path, ".").CombinedOutput()
	})
}

// fleetBinary returns the real binary every process test runs, built once
// (buildShared).
func fleetBinary(t *testing.T) string {
	t.Helper()
	buildShared()
	if sharedBin.err != nil {
		t.Fatalf("go build: %v\n%s", sharedBin.err, sharedBin.out)
	}
	return sharedBin.path
}

// Package release holds the release scripts (build.sh, npm/); this test
// checks that every platform build.sh --all ships still compiles.
package release

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// crossTargets are the non-Linux platforms of `release/build.sh --all`.
// Linux is built by every other test run.
var crossTargets = []string{"darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// TestCrossBuild runs `go build ./...` (every package of the module,
// cmd/cellhost included) with CGO_ENABLED=0 for each target, as
// release/build.sh --all does. It catches a Linux-only system call (say
// unix.Syncfs) used outside a _linux.go file. It is a Go test rather than a
// step of release/build.sh so that CI's `go test ./...` runs it with no
// change to .ci/run; with a cold build cache it compiles every dependency
// (modernc's SQLite mostly) once per target, minutes on a 2-core machine,
// so -short skips it. Test files are not compiled: they may use Linux-only
// calls.
func TestCrossBuild(t *testing.T) {
	// Minutes with a cold build cache (one target took 268 s on a busy
	// 2-core machine): kept out of the README's test command, which stays
	// near five minutes; .ci/run runs it as a step of its own.
	if os.Getenv("CELLHOST_CROSSBUILD") != "1" {
		t.Skip("cross-compiles the module for darwin and windows (minutes with a cold build cache): CELLHOST_CROSSBUILD=1 go test ./release/ (.ci/run does)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	for _, target := range crossTargets {
		goos, goarch, _ := strings.Cut(target, "/")
		t.Run(goos+"_"+goarch, func(t *testing.T) {
			cmd := exec.Command(goBin, "build", "./...")
			cmd.Dir = ".." // the module root
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s GOARCH=%s CGO_ENABLED=0 go build ./...: %v\n%s", goos, goarch, err, out)
			}
		})
	}
}

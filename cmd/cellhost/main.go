// Command cellhost runs Cloudflare-style Durable Objects on your own machine.
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/cellhost/cellhost/internal/httpguard"
	"github.com/cellhost/cellhost/internal/memrelief"

	_ "github.com/cellhost/cellhost/bindings/standard"
)

func main() {
	tuneGC()
	go memrelief.New(memrelief.Config{Activity: httpguard.Activity, Quiet: reliefQuiet()}, time.Now()).Run(context.Background())
	startPprof()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC trades memory for CPU unless GOGC or GOMEMLIMIT say otherwise. The
// JS engine allocates ~50 KB of short-lived garbage per request; collecting
// at 10x the live heap instead of 2x saves CPU a host lacks (measured with
// bench/counter.sh: GOGC 100 -> 400 took a stateless fetch from ~48 to ~34
// us of CPU; 400 -> 1000 gave counter increments ~5% more req/s, RSS ~250
// MB). A soft memory limit of half the machine's RAM makes the collector run
// sooner before the heap could grow into swap.
// machineLimit is half the machine's RAM (at least 256 MiB), 0 if unknown.
func machineLimit() int64 {
	if total, ok := totalMemory(); ok {
		return int64(max(total/2, 256<<20))
	}
	return 0
}

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1000)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if l := machineLimit(); l > 0 {
			debug.SetMemoryLimit(l)
		}
	}
}

// reliefQuiet is how long the servers must be quiet before memory goes
// back to the system (internal/memrelief): 30 s, or CELLHOST_MEMRELIEF_QUIET
// (a Go duration; the hostile suite's short form uses 2 s).
func reliefQuiet() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("CELLHOST_MEMRELIEF_QUIET")); err == nil && d > 0 {
		return d
	}
	return 30 * time.Second
}

// buildGOGC is the collector's target while cellhost dev bundles the
// worker and starts its runtimes. Bundling (esbuild's ASTs) and the first
// run of a real library make several times the live heap in garbage: at
// tuneGC's 1000 the collector does not run during the build and the
// process keeps the build's peak. Go's default target during the build,
// then a collection that gives the free pages back (debug.FreeOSMemory),
// keeps the start as fast and RSS near the live heap. bench/devmem.sh on
// the Agents SDK case (agents 0.32, 85 MB live heap), same run, load ~25 on
// 2 cores: RSS once serving 556-564 MB before, 195-210 MB with this; start
// time unchanged within the noise (15-20 s vs 19 s at that load); a target
// of 25 gave 153 MB but a start 1.5-2x slower.
const buildGOGC = 100

// devHeadroom and devMinLimit set cellhost dev's soft memory limit after a
// build: devHeadroom times the live heap, at least devMinLimit, at most
// tuneGC's half of the machine. Under load GOGC 1000 lets the heap grow to
// 11x the live heap before collecting (750-870 MB RSS on the Agents case
// after 8 s of wrk); the limit makes the collector run at this bound
// instead, so RSS follows the live heap, while a small worker keeps
// GOGC 1000's throughput (its heap never reaches the limit). GOGC=100
// instead held RSS at ~280 MB but cost 60% of the requests per second.
const (
	devHeadroom = 4
	devMinLimit = 384 << 20
)

// buildGC lowers the collector's target for a build if lower (GOGC, or
// tuneGC's choice, applies again after it) and returns the function that ends it:
// it restores the target, collects what the build left, gives the free
// pages back to the system and sets the soft memory limit from the live
// heap (unless GOMEMLIMIT is set). Ending twice is harmless. A reload does
// not lower the target (at GOGC 100 the collector ran through the build
// and reloads took 2-4x as long: 480-820 ms against 40-240 ms at load ~35)
// and releases after the new code serves.
func buildGC(lower bool) (end func()) {
	target := buildGOGC
	switch v := os.Getenv("CELLHOST_BUILD_GC"); v { // bench/devmem.sh's settings
	case "":
	case "off":
		return func() {}
	default:
		n, err := strconv.Atoi(v)
		if err != nil {
			return func() {}
		}
		target = n
	}
	old := -2 // not changed
	if lower {
		old = debug.SetGCPercent(target)
	}
	done := false
	return func() {
		if done {
			return
		}
		done = true
		if old != -2 {
			debug.SetGCPercent(old)
		}
		debug.FreeOSMemory()
		if os.Getenv("GOMEMLIMIT") == "" {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			limit := max(int64(ms.HeapAlloc)*devHeadroom, devMinLimit)
			if machine := machineLimit(); machine > 0 {
				limit = min(limit, machine)
			}
			debug.SetMemoryLimit(limit)
		}
	}
}

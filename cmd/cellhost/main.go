// Command cellhost runs Cloudflare-style Durable Objects on your own machine.
package main

import (
	"os"
	"runtime/debug"

	_ "github.com/cellhost/cellhost/plugins/standard"
)

func main() {
	tuneGC()
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
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1000)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total, ok := totalMemory(); ok {
			debug.SetMemoryLimit(int64(max(total/2, 256<<20)))
		}
	}
}

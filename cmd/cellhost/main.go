// Command cellhost runs Cloudflare-style Durable Objects on your own machine.
package main

import (
	"os"
	"runtime/debug"

	_ "github.com/cellhost/cellhost/plugins/standard"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The JS engine allocates a lot of short-lived garbage per request;
		// collecting less often costs memory a host has and saves CPU it
		// lacks (measured: stateless fetch ~48 -> ~34 us of CPU).
		debug.SetGCPercent(400)
	}
	startPprof()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

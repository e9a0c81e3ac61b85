// Command cellhost runs Cloudflare-style Durable Objects on your own machine.
package main

import (
	"os"

	_ "github.com/cellhost/cellhost/plugins/standard"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/jsapi"
)

// version and commit are set at build time (release/build.sh):
// go build -ldflags "-X main.version=v1.2.3 -X main.commit=<sha>". Without
// them, the module version (go install ...@version) or the VCS revision Go
// recorded is shown.
var version, commit = "", ""

// versionString is what --version prints.
func versionString() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		if v == "" {
			var rev, dirty string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					if s.Value == "true" {
						dirty = "+dirty"
					}
				}
			}
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if rev != "" {
				v = "devel-" + rev + dirty
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if commit != "" {
		c := commit
		if len(c) > 12 {
			c = c[:12]
		}
		v += " " + c
	}
	return fmt.Sprintf("cellhost %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// run executes the command line and returns the process exit code. Errors
// are printed as one "cellhost: ..." line, never a stack trace.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "cellhost",
		Short: "Run Cloudflare-style Durable Objects on your own machine",
		Long: `cellhost runs Cloudflare-style Durable Objects, written in JavaScript or
TypeScript, on your own machine: a wrangler project runs unchanged. Each
object gets its own SQLite database; every commit is logged to a bucket
(a local directory by default, or S3).`,
		Example: `  cellhost dev                          # serve the wrangler project in this directory
  cellhost dev examples/counter --port 8788
  cellhost dev src/index.ts             # a bare module: every exported class is a DO class
  cellhost diagnose --bucket s3://my-bucket/cells
  cellhost --version`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newDevCommand(stdout, stderr))
	root.AddCommand(newDiagnoseCommand(stdout, stderr))
	root.AddCommand(newServeCommand(stdout, stderr))
	root.AddCommand(newDeployCommand(stdout, stderr))
	root.AddCommand(newBucketCommand(stdout, stderr))
	root.AddCommand(newImportCommand(stdout, stderr))
	root.AddCommand(newExportCommand(stdout, stderr))
	root.AddCommand(newTestCommand(stdout, stderr))
	if err := root.Execute(); err != nil {
		var uc *jsapi.UnexportedClassesError
		if errors.As(err, &uc) {
			uc.Entry = relOrAbs(uc.Entry) // src/index.js, as wrangler names it
		}
		fmt.Fprintf(stderr, "cellhost: %v\n", err)
		return 1
	}
	return 0
}

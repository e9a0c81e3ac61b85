package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// run executes the command line and returns the process exit code. Errors
// are printed as one "cellhost: ..." line, never a stack trace.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "cellhost",
		Short:         "Run Cloudflare-style Durable Objects on your own machine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.AddCommand(newDevCommand(stdout, stderr))
	root.AddCommand(newDiagnoseCommand(stdout, stderr))
	root.AddCommand(newServeCommand(stdout, stderr))
	root.AddCommand(newDeployCommand(stdout, stderr))
	root.AddCommand(newBucketCommand(stdout, stderr))
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "cellhost: %v\n", err)
		return 1
	}
	return 0
}

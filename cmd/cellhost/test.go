package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/internal/vitest"
)

// newTestCommand is `cellhost test`: the project's Vitest suite, written
// for @cloudflare/vitest-pool-workers, run on cellhost (internal/vitest).
func newTestCommand(stdout, stderr io.Writer) *cobra.Command {
	var config string
	var asJSON, verbose bool
	cmd := &cobra.Command{
		Use:   "test [dir] [filter...]",
		Short: "Run the project's Vitest suite (written for @cloudflare/vitest-pool-workers) on cellhost",
		Long: `Runs the tests of a project's vitest.config, written for
@cloudflare/vitest-pool-workers, inside cellhost's runtime: test files import
"vitest" and "cloudflare:test" as they do under the pool, and are not changed.
The config's poolOptions.workers are read (wrangler.configPath and environment,
main, miniflare.bindings/compatibilityDate/compatibilityFlags, isolatedStorage).`,
		Example: `  cellhost test                       # the project in this directory
  cellhost test examples/counter kv   # test files whose path contains "kv"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) > 0 {
				dir, args = args[0], args[1:]
			}
			c, err := vitest.LoadConfig(dir, config)
			if err != nil {
				return err
			}
			if len(c.Ignored) > 0 && !asJSON {
				fmt.Fprintf(stderr, "%s cellhost test ignores poolOptions.workers.%s\n", markWarn, strings.Join(c.Ignored, ", "))
			}
			o := vitest.Options{Files: args}
			if verbose {
				o.Log = stderr
			}
			rep, err := vitest.Run(cmd.Context(), c, o)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				vitest.Print(stdout, rep)
			}
			if _, failed, _, files := rep.Counts(); failed > 0 || files > 0 {
				return errTestsFailed
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "the vitest config file (default: vitest.config.* in dir)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as JSON")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "show the worker's console output")
	return cmd
}

// errTestsFailed ends `cellhost test` with status 1 after the report.
var errTestsFailed = fmt.Errorf("some tests failed")

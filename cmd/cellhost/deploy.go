package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
)

func newDeployCommand(stdout, stderr io.Writer) *cobra.Command {
	var bucket string
	cmd := &cobra.Command{
		Use:   "deploy [dir | module.js] --bucket URL",
		Short: "Bundle a project and make it the application of the fleet on a bucket",
		Long: `Bundle a project and make it the application of the fleet on a bucket.

The bundle and the Durable Object bindings, vars and compatibility settings of
the wrangler config are written to cellhost/deployments/<id>.json in the
bucket (never under celld's deploy/). Every "cellhost serve --bucket URL"
started without a project runs the newest deployment, and a running one
switches to it within its --deploy-poll: objects active at that moment are
restarted with the new code (their state is kept; in-memory state is not,
as after a deploy on Cloudflare).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := "."
			if len(args) == 1 {
				target = args[0]
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			return runDeploy(ctx, target, bucket, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&bucket, "bucket", "", "the fleet's bucket: s3://bucket/prefix or file:///dir (required)")
	_ = cmd.MarkFlagRequired("bucket")
	return cmd
}

func runDeploy(ctx context.Context, target, bucket string, stdout, stderr io.Writer) error {
	cfg, err := wrangler.Resolve(target)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	hc, err := project.HostConfig(cfg) // bundles and checks the classes
	if err != nil {
		return err
	}
	d := &fleet.Deployment{
		Script: hc.Script, Entry: hc.Bundle.Entry, Code: hc.Bundle.Code, Vars: hc.Vars,
		CompatibilityDate: hc.CompatibilityDate, CompatibilityFlags: hc.CompatibilityFlags,
	}
	for _, b := range hc.Bindings {
		d.Bindings = append(d.Bindings, fleet.DeployedClass{Name: b.Name, Class: b.Class})
	}
	d.Extra = deployedBindings(cfg)
	store, err := plugins.OpenStore(ctx, bucket)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", bucket, err)
	}
	defer store.Close()
	id, err := fleet.PutDeployment(ctx, store, d, time.Now())
	if err != nil {
		return fmt.Errorf("bucket %s: %w", bucket, err)
	}
	fmt.Fprintf(stdout, "deployed %s as %s to %s\n", cfg.Name, id, bucket)
	return nil
}

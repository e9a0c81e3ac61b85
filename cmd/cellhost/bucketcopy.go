package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

func newBucketCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bucket",
		Short: "Tools for fleet buckets",
	}
	var overwrite bool
	cp := &cobra.Command{
		Use:   "copy FROM-URL TO-URL",
		Short: "Copy every object of a bucket to another (file:// to s3:// and back)",
		Long: `Copy every object of a bucket to another, key for key and byte for byte:
node leases, ownership records, LTX logs, markers, the wake index, R2 objects.
This is how a cellhost dev bucket (file://, cellhost's own storage format)
moves to an S3 bucket that celld nodes can share, and back.

No node may be running on FROM: the copy refuses a bucket with a live node
lease. Keys that already exist in TO are an error unless --overwrite.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := copyBucket(cmd.Context(), args[0], args[1], overwrite, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "copied %d objects from %s to %s\n", n, args[0], args[1])
			return nil
		},
	}
	cp.Flags().BoolVar(&overwrite, "overwrite", false, "replace objects that already exist in TO")
	cmd.AddCommand(cp)
	return cmd
}

// copyBucket copies every object of the bucket at from to the bucket at to
// (probe keys excepted) and returns how many it copied.
func copyBucket(ctx context.Context, from, to string, overwrite bool, now time.Time) (int, error) {
	src, err := plugins.OpenStore(ctx, from)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	dst, err := plugins.OpenStore(ctx, to)
	if err != nil {
		return 0, err
	}
	defer dst.Close()
	var live []string
	if err := eachKey(ctx, src, bucketkey.NodesPrefix, func(key string) {
		body, _, err := src.Get(ctx, key)
		if err != nil {
			return
		}
		if rec, err := ownership.DecodeNodeRecord(key, body); err == nil && rec.Live(key, now) {
			live = append(live, rec.Node)
		}
	}); err != nil {
		return 0, err
	}
	if len(live) > 0 {
		return 0, fmt.Errorf("bucket %s has live nodes (%s): stop them (or wait for their leases to expire) before copying", from, strings.Join(live, ", "))
	}
	n := 0
	var copyErr error
	err = eachKey(ctx, src, "", func(key string) {
		if copyErr != nil || strings.HasPrefix(key, bucketkey.ProbePrefix) {
			return
		}
		body, _, err := src.Get(ctx, key)
		if errors.Is(err, plugins.ErrNotFound) {
			return
		}
		if err != nil {
			copyErr = fmt.Errorf("read %s: %w", key, err)
			return
		}
		if _, err := dst.Put(ctx, key, body, plugins.PutOptions{IfNoneMatch: !overwrite}); err != nil {
			if errors.Is(err, plugins.ErrPreconditionFailed) {
				err = fmt.Errorf("%s already exists in %s (pass --overwrite to replace it)", key, to)
			}
			copyErr = fmt.Errorf("write %s: %w", key, err)
			return
		}
		n++
	})
	if err == nil {
		err = copyErr
	}
	return n, err
}

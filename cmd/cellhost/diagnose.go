package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

type diagnoseOptions struct {
	bucket  string
	timeout time.Duration
}

func newDiagnoseCommand(stdout, stderr io.Writer) *cobra.Command {
	var o diagnoseOptions
	cmd := &cobra.Command{
		Use:   "diagnose --bucket URL",
		Short: "Check that a bucket can coordinate a fleet, and list its nodes",
		Long: `Check that a bucket can coordinate a fleet, and list its nodes.

Runs the storage probe of the bucket protocol on probe/cas-<unique>: a create
that must apply, a second create that must be rejected, an update with the
returned etag that must apply, an update with the old etag that must be
rejected, then a delete. Prints one line per check, then every node lease
under nodes/ as live or dead, the waker role (wake/waker.json), the wake
index and the node-cells markers left for dead-node GC. Exits non-zero when a
check fails.`,
		Example: `  cellhost diagnose --bucket file://$PWD/.cellhost/bucket
  cellhost diagnose --bucket 's3://my-bucket/cells?endpoint=http://127.0.0.1:7070&region=us-east-1'
  cellhost diagnose --bucket mem://test --timeout 5s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), o.timeout)
			defer cancel()
			return runDiagnose(ctx, o.bucket, stdout, time.Now)
		},
	}
	cmd.Flags().StringVar(&o.bucket, "bucket", "", "bucket URL: file:///dir, s3://bucket/prefix, mem://name")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Second, "give up after this long")
	_ = cmd.MarkFlagRequired("bucket")
	return cmd
}

// runDiagnose opens the bucket, probes it, lists its node leases and
// returns an error (one line) when the bucket cannot be used.
func runDiagnose(ctx context.Context, bucket string, w io.Writer, now func() time.Time) error {
	// Opening a file:// bucket creates its directory; a diagnosis must not
	// (a typo would then be reported as a healthy, empty bucket).
	if u, err := url.Parse(bucket); err == nil && u.Scheme == "file" {
		dir, err := filestore.DirFromURL(u)
		if err != nil {
			return err
		}
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("bucket %s: %w", bucket, err)
		}
	}
	store, err := plugins.OpenStore(ctx, bucket)
	if err != nil {
		return err
	}
	defer store.Close()

	fmt.Fprintf(w, "bucket %s\n", bucket)
	fmt.Fprintln(w, "storage probe:")
	steps, probeErr := ownership.Probe(ctx, store)
	for _, st := range steps {
		mark := "✓"
		if !st.OK {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %s: want %s, got %s\n", mark, st.Name, st.Want, st.Got)
	}
	if probeErr != nil {
		var fault *ownership.StoreFaultError
		if errors.As(probeErr, &fault) {
			return fmt.Errorf("bucket %s is refused: %v", bucketName(bucket, store)(), probeErr)
		}
		return fmt.Errorf("bucket %s failed the storage probe: %v", bucket, probeErr)
	}

	live, err := listNodes(ctx, store, w, now())
	if err != nil {
		return fmt.Errorf("bucket %s: %v", bucket, err)
	}
	if err := listWake(ctx, store, w, now()); err != nil {
		return fmt.Errorf("bucket %s: %v", bucket, err)
	}
	return checkPeers(ctx, store, w, live)
}

// checkPeers pings every live node that advertises a peer address over the
// signed peer protocol, with the fleet secret of the bucket, and prints
// which check failed. It fails when a live node does not answer.
func checkPeers(ctx context.Context, store plugins.ObjectStore, w io.Writer, live []ownership.NodeRecord) error {
	body, _, err := store.Get(ctx, bucketkey.PeerSecretKey)
	if errors.Is(err, plugins.ErrNotFound) {
		fmt.Fprintf(w, "peers: not checked: no fleet secret (%s) yet; no cellhost serve node has joined\n", bucketkey.PeerSecretKey)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", bucketkey.PeerSecretKey, err)
	}
	secret, err := fleet.DecodeSecret(body)
	if err != nil {
		return err
	}
	client := fleet.NewClient(secret, "diagnose")
	defer client.Close()
	fmt.Fprintln(w, "peers (signed ping):")
	failed := 0
	for _, rec := range live {
		if rec.Addr == ownership.DefaultAddr(rec.Node) {
			fmt.Fprintf(w, "  - %s: no peer address (a cellhost dev node)\n", rec.Node)
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		pong, err := client.PingStatus(pctx, rec.Addr)
		cancel()
		got := ""
		if pong != nil {
			got = pong.Node
		}
		var fe *fleet.ForwardError
		switch {
		case err == nil && got == rec.Node:
			fmt.Fprintf(w, "  ✓ %s at %s answers\n", rec.Node, rec.Addr)
			if st := pong.Status; st != nil {
				printStatus(w, st)
			}
			if fams, err := scrapeMetrics(ctx, rec.Addr); err != nil {
				fmt.Fprintf(w, "      metrics: not read: %v\n", err)
			} else {
				printMetrics(w, fams)
			}
			continue
		case err == nil:
			fmt.Fprintf(w, "  ✗ %s at %s: answered as %s (a stale lease, or two nodes on one address)\n", rec.Node, rec.Addr, got)
		case errors.As(err, &fe) && fe.Unsent():
			fmt.Fprintf(w, "  ✗ %s at %s: cannot connect: %v\n", rec.Node, rec.Addr, fe.Err)
		case errors.As(err, &fe):
			fmt.Fprintf(w, "  ✗ %s at %s: no valid signed answer: %v\n", rec.Node, rec.Addr, fe.Err)
		default:
			fmt.Fprintf(w, "  ✗ %s at %s: refused the ping: %v\n", rec.Node, rec.Addr, err)
		}
		failed++
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d live nodes failed the peer check", failed, len(live))
	}
	return nil
}

// printStatus prints a running node's load and counters.
func printStatus(w io.Writer, st *fleet.NodeStatus) {
	fmt.Fprintf(w, "      load: %d resident cells, %d WebSockets, %.1f requests/s (%d requests, %d events) up %v\n",
		st.ResidentCells, st.WebSockets, st.RequestsPerSec, st.Requests, st.Events, (time.Duration(st.UptimeMS) * time.Millisecond).Round(time.Second))
	wk := st.Wake
	role := "not the waker"
	if wk.WakerHeld {
		role = "the waker"
	}
	fmt.Fprintf(w, "      alarms: %d fired; wake index: %d published, %d retired, %d publish errors, %d cells woken, %d wake errors (%s)\n",
		st.AlarmsFired, wk.Published, wk.Retired, wk.PublishErrors, wk.Woken, wk.WakeErrors, role)
	fmt.Fprintf(w, "      dead-node GC: %d passes, %d swept, %d retries, %d deletes, %d records retired, %d skipped; failover sweep: %d cells taken over\n",
		wk.GC.Passes, wk.GC.Swept, wk.GC.Retries, wk.GC.Deletes, wk.GC.Retired, wk.GC.Skipped, wk.GC.Taken)
}

// listNodes prints every node lease under nodes/ as live, dead or
// undecodable.
func listNodes(ctx context.Context, store plugins.ObjectStore, w io.Writer, now time.Time) ([]ownership.NodeRecord, error) {
	var lines []string
	var liveRecs []ownership.NodeRecord
	live, dead, bad := 0, 0, 0
	after := ""
	for {
		page, err := store.List(ctx, bucketkey.NodesPrefix, after, 0)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", bucketkey.NodesPrefix, err)
		}
		for _, o := range page.Objects {
			body, _, err := store.Get(ctx, o.Key)
			if errors.Is(err, plugins.ErrNotFound) {
				continue // deleted since the listing
			}
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", o.Key, err)
			}
			rec, err := ownership.DecodeNodeRecord(o.Key, body)
			if err != nil {
				bad++
				lines = append(lines, fmt.Sprintf("  ? %v", err))
				continue
			}
			expires := time.UnixMilli(int64(min(rec.ExpiresMS, 1<<63-1)))
			if rec.Live(o.Key, now) {
				live++
				liveRecs = append(liveRecs, rec)
				lines = append(lines, fmt.Sprintf("  live %s addr %s generation %s expires in %v",
					rec.Node, rec.Addr, short(rec.OwnershipIndexGeneration), expires.Sub(now).Round(time.Millisecond)))
				continue
			}
			dead++
			node, err := bucketkey.ParseNodeKey(o.Key)
			if err != nil {
				node = o.Key
			}
			why := fmt.Sprintf("expired %v ago", now.Sub(expires).Round(time.Second))
			switch {
			case rec.ExpiresMS == 0:
				why = "tombstone"
			case rec.Node != node:
				why = fmt.Sprintf("names node %s, not its key", rec.Node)
			case rec.Addr == "":
				why = "no addr"
			}
			lines = append(lines, fmt.Sprintf("  dead %s (%s)", node, why))
		}
		if page.NextStartAfter == "" {
			break
		}
		after = page.NextStartAfter
	}
	fmt.Fprintf(w, "%s: %d live, %d dead, %d undecodable\n", bucketkey.NodesPrefix, live, dead, bad)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return liveRecs, nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

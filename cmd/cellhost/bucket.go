package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// fleetMembership is the bucket and node lease a host runs with.
type fleetMembership struct {
	store plugins.ObjectStore
	node  *ownership.Node
	wake  *fleet.Wake // the wake index and waker role (wake.go)
	// wakeStore holds the wake index when there is no bucket
	// (--durability local).
	wakeStore plugins.ObjectStore
}

// joinBucket opens the bucket (default: a directory inside the state
// directory), takes this node's lease on it and sets hc's Bucket and Node.
// With durability "local" it does nothing.
func joinBucket(ctx context.Context, hc *host.Config, bucketURL, durability string, log *slog.Logger) (*fleetMembership, error) {
	if durability == "" {
		durability = host.DurabilityLog
	}
	hc.Durability = durability
	switch durability {
	case host.DurabilityLocal:
		if bucketURL != "" {
			return nil, errors.New("--bucket has no effect with --durability local; drop one of them")
		}
		return &fleetMembership{}, nil
	case host.DurabilityLog, host.DurabilityBackup:
	default:
		return nil, fmt.Errorf("unknown --durability %q: want log, backup or local", durability)
	}
	if err := os.MkdirAll(hc.StateDir, 0o700); err != nil {
		return nil, err
	}
	if bucketURL == "" {
		abs, err := filepath.Abs(filepath.Join(hc.StateDir, "bucket"))
		if err != nil {
			return nil, err
		}
		bucketURL = "file://" + abs
	}
	store, err := plugins.OpenStore(ctx, bucketURL)
	if err != nil {
		return nil, err
	}
	nodeID, err := persistentNodeID(hc.StateDir)
	if err != nil {
		store.Close()
		return nil, err
	}
	node, err := ownership.New(ownership.Config{
		Store:  store,
		NodeID: nodeID,
		// A bucket outage fences the node; it takes a new lease when
		// the bucket answers again, without a restart.
		Rejoin: true,
		Log:    log,
	})
	if err != nil {
		store.Close()
		return nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := node.Start(startCtx); err != nil {
		store.Close()
		return nil, fmt.Errorf("join bucket %s: %w", bucketURL, err)
	}
	hc.Bucket, hc.Node = store, node
	return &fleetMembership{store: store, node: node}, nil
}

// close stops the wake index (after its queued writes), releases the cells
// and the lease, then closes the bucket.
func (f *fleetMembership) close() {
	if f.wake != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		_ = f.wake.Close(ctx)
		cancel()
	}
	if f.wakeStore != nil {
		f.wakeStore.Close()
	}
	if f.node != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = f.node.Close(ctx)
	}
	if f.store != nil {
		f.store.Close()
	}
}

// persistentNodeID keeps the node id of a state directory across restarts,
// so that a restarted `cellhost dev` takes over its own lease at once.
func persistentNodeID(stateDir string) (string, error) {
	p := filepath.Join(stateDir, "node-id")
	b, err := os.ReadFile(p)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if err := ownership.ValidateNodeID(id); err != nil {
			return "", fmt.Errorf("%s: %w; delete the file to get a new node id", p, err)
		}
		_ = os.Chmod(p, 0o600) // an older cellhost wrote it 0644
		return id, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	id := ownership.NewNodeID()
	if err := os.WriteFile(p, []byte(id+"\n"), 0o600); err != nil {
		return "", err
	}
	return id, nil
}

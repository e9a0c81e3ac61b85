package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/plugins"
)

// wakeOptions are the flags of the wake index and the waker role.
type wakeOptions struct {
	poll time.Duration // wakePollMs
	tick time.Duration // the waker tick
}

func (o *wakeOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&o.poll, "wake-poll", fleet.DefaultWakePoll*time.Millisecond, "how often the wake index is read (wakePollMs)")
	cmd.Flags().DurationVar(&o.tick, "waker-tick", fleet.DefaultWakerTick, "the elected waker's tick (its lease lasts 3 ticks; dead-node GC runs once per tick); at most --lease-ttl/3 in serve")
	_ = cmd.Flags().MarkHidden("wake-poll")
	_ = cmd.Flags().MarkHidden("waker-tick")
}

// prepareWake builds the wake index of a node and makes it the host's
// AlarmSink; log gets its messages (the waker's role, the counters, the
// failover sweep). On a bucket the index lives there; with --durability
// local (no bucket) it lives in a store of its own, <state>/wake, so that
// alarms outlive a restart in that mode too.
func (f *fleetMembership) prepareWake(ctx context.Context, hc *host.Config, o wakeOptions, log *slog.Logger) error {
	store, nodeID := plugins.ObjectStore(f.store), ""
	if f.node != nil {
		nodeID = f.node.ID()
	} else {
		abs, err := filepath.Abs(filepath.Join(hc.StateDir, "wake"))
		if err != nil {
			return err
		}
		if store, err = plugins.OpenStore(ctx, "file://"+abs); err != nil {
			return fmt.Errorf("wake index: %w", err)
		}
		f.wakeStore = store
		if nodeID, err = persistentNodeID(hc.StateDir); err != nil {
			return err
		}
	}
	w, err := fleet.NewWake(fleet.WakeConfig{
		Store: store,
		Node:  nodeID,
		Poll:  o.poll,
		Tick:  o.tick,
		Log:   log,
	})
	if err != nil {
		return err
	}
	f.wake = w
	hc.AlarmSink = w
	return nil
}

// startWake reads the wake index (waking the cells whose alarms are due)
// and starts the poll and waker loops; h receives the wakes.
func (f *fleetMembership) startWake(ctx context.Context, h fleet.CellWaker) error {
	if f.wake == nil {
		return nil
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.wake.Start(startCtx, h); err != nil {
		return fmt.Errorf("wake index: %w", err)
	}
	return nil
}

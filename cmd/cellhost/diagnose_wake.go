package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// listWake prints the wake index and the waker role (bucket protocol,
// section 6) and what dead-node GC still has to do (section 8): the waker
// record, the entries (how many are overdue), the retirements, and the
// node-cells markers of nodes without a live lease.
func listWake(ctx context.Context, store plugins.ObjectStore, w io.Writer, now time.Time) error {
	body, _, err := store.Get(ctx, bucketkey.WakerKey)
	switch {
	case errors.Is(err, plugins.ErrNotFound):
		fmt.Fprintf(w, "%s: absent (no waker yet)\n", bucketkey.WakerKey)
	case err != nil:
		return fmt.Errorf("read %s: %w", bucketkey.WakerKey, err)
	default:
		rec, derr := fleet.DecodeWakerRecord(body)
		switch {
		case derr != nil:
			fmt.Fprintf(w, "%s: undecodable (%v)\n", bucketkey.WakerKey, derr)
		case rec.ExpiresMS > now.UnixMilli():
			fmt.Fprintf(w, "%s: held by %s, expires in %v\n", bucketkey.WakerKey, rec.Node, time.UnixMilli(rec.ExpiresMS).Sub(now).Round(time.Millisecond))
		default:
			fmt.Fprintf(w, "%s: expired %v ago (last holder %s)\n", bucketkey.WakerKey, now.Sub(time.UnixMilli(rec.ExpiresMS)).Round(time.Second), rec.Node)
		}
	}
	var entries, overdue, retired int
	err = eachKey(ctx, store, bucketkey.WakePrefix, func(key string) {
		k, err := bucketkey.ParseWakeKey(key)
		switch {
		case err != nil:
		case k.Retired:
			retired++
		default:
			entries++
			// An entry's minute ended before now: its alarm is overdue.
			if k.MinuteMS+60_000 <= now.UnixMilli() {
				overdue++
			}
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d entries (%d overdue by more than their minute), %d retired\n", bucketkey.WakePrefix, entries, overdue, retired)

	markers := map[string]int{}
	if err := eachKey(ctx, store, bucketkey.MarkersPrefix, func(key string) {
		if node, _, ok := fleet.ParseMarkerKey(key); ok {
			markers[node]++
		}
	}); err != nil {
		return err
	}
	total := 0
	for _, n := range markers {
		total += n
	}
	fmt.Fprintf(w, "%s: %d markers of %d nodes\n", bucketkey.MarkersPrefix, total, len(markers))
	return nil
}

// eachKey calls f for every key under prefix.
func eachKey(ctx context.Context, store plugins.ObjectStore, prefix string, f func(string)) error {
	after := ""
	for {
		page, err := store.List(ctx, prefix, after, 0)
		if err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range page.Objects {
			f(o.Key)
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			return nil
		}
		after = page.NextStartAfter
	}
}

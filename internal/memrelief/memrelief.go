// Package memrelief gives a quiet process's free memory back to the system.
//
// cellhost collects garbage at GOGC 1000 (cmd/cellhost/main.go: throughput
// on a busy host), so under any traffic the heap grows to about eleven
// times the live heap before a collection, and Go's background scavenger
// keeps what lies under that goal: an idle node that served a burst (a
// connection flood, or the light reads that follow it) stays at the
// burst's size. Measured on cellhost dev (issue 23): 66 MB before, 193 MB
// after 60 s of 500 reads per second with no attack at all (12 MB live,
// goal 139 MB), 230 MB after 10 000 idle connections and the same reads,
// for as long as the process lived.
//
// Relief watches an activity counter (requests and connections); once it
// has not moved for Quiet and the heap holds more than twice the live heap
// (plus Slack) in pages the process could give back, it collects and
// returns the free pages (debug.FreeOSMemory), once per quiet period. A
// busy process is left alone (the collector's own pace is what it wants).
// The live figure is the last collection's, which may date from the burst
// itself (at GOGC 1000 an idle process does not collect): when it says
// there is nothing to give back, Relief collects once (runtime.GC) and
// decides on the fresh figure. Measured (issue 23, 4 200 connections
// holding unsent bodies): the last collection ran during the attack and
// counted its connections live, so 160 MB held stayed under twice that
// figure and nothing was given back (62 MB before, 207 MB a minute after).
// Go offers no policy of this kind (its scavenger follows the heap goal,
// and a soft memory limit would also bind a busy process), hence this one.
package memrelief

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Stats is what the decision reads of the heap, in bytes.
type Stats struct {
	Live     uint64 // marked live by the last collection
	Retained uint64 // heap pages held: objects (live or not yet swept), free and unused
}

// Config is a Relief's policy and its hooks (tests replace the hooks).
type Config struct {
	// Activity is a counter that moves whenever the process works.
	Activity func() int64
	// Quiet is how long Activity must not move (default 30 s).
	Quiet time.Duration
	// Slack is retained memory beyond twice the live heap that is left
	// alone (default 16 MiB).
	Slack uint64
	// Read reads the heap (default: runtime/metrics); Free gives memory
	// back (default: freeAll); Collect runs a collection, so
	// that Read's live figure is current (default: runtime.GC).
	Read    func() Stats
	Free    func()
	Collect func()
}

// Relief is the state between checks.
type Relief struct {
	c        Config
	last     int64     // Activity at the last check
	since    time.Time // when Activity last moved
	relieved bool      // Free ran in this quiet period
	// collected: Collect ran in this quiet period (the live figure is
	// current until activity moves again)
	collected bool
	// Frees counts the times memory was given back.
	Frees int
}

// New returns a Relief for c, as of now.
func New(c Config, now time.Time) *Relief {
	if c.Quiet <= 0 {
		c.Quiet = 30 * time.Second
	}
	if c.Slack == 0 {
		c.Slack = 16 << 20
	}
	if c.Read == nil {
		c.Read = ReadStats
	}
	if c.Free == nil {
		c.Free = freeAll
	}
	if c.Collect == nil {
		c.Collect = runtime.GC
	}
	return &Relief{c: c, last: c.Activity(), since: now}
}

// Check runs one check at now and reports whether it gave memory back.
func (r *Relief) Check(now time.Time) bool {
	if a := r.c.Activity(); a != r.last {
		r.last, r.since, r.relieved, r.collected = a, now, false, false
		return false
	}
	if r.relieved || now.Sub(r.since) < r.c.Quiet {
		return false
	}
	s := r.c.Read()
	if s.Retained <= 2*s.Live+r.c.Slack {
		if r.collected {
			return false
		}
		// The live figure may be the burst's: collect once and look again.
		r.c.Collect()
		r.collected = true
		if s = r.c.Read(); s.Retained <= 2*s.Live+r.c.Slack {
			return false
		}
	}
	r.c.Free()
	r.relieved = true
	r.Frees++
	return true
}

// Run checks every tenth of Quiet (at least every second) until ctx ends.
func (r *Relief) Run(ctx context.Context) {
	t := time.NewTicker(max(r.c.Quiet/10, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.Check(now)
		}
	}
}

// freeAll collects twice and gives the free pages back: what a sync.Pool
// holds survives one collection in its victim cache, and net/http keeps
// each connection's bufio buffers in pools (4 KiB to read, 2 and 4 KiB to
// write), as Echo keeps its contexts. Measured (the long hostile form's
// 4 200 unsent bodies): after debug.FreeOSMemory alone 77 MB stayed live
// with no connection left, RSS 150 MB for 64 MB before the attack.
func freeAll() {
	runtime.GC()
	debug.FreeOSMemory()
}

var statNames = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/unused:bytes",
}

// ReadStats reads the heap from runtime/metrics.
func ReadStats() Stats {
	ss := make([]metrics.Sample, len(statNames))
	for i, n := range statNames {
		ss[i].Name = n
	}
	metrics.Read(ss)
	v := func(i int) uint64 {
		if ss[i].Value.Kind() == metrics.KindUint64 {
			return ss[i].Value.Uint64()
		}
		return 0
	}
	return Stats{Live: v(0), Retained: v(1) + v(2) + v(3)}
}

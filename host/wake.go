package host

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cellhost/cellhost/storage"
)

// Alarms outside memory (bucket protocol, section 6). The host tells an
// AlarmSink (fleet.Wake, wired in cmd/cellhost) about every alarm once it
// is durable; the sink publishes it in the bucket's wake index, and whoever
// reads the index later calls Wake to bring the cell back. With a sink, an
// idle object whose alarm is published is evicted like any idle object.

// AlarmSink is told about a cell's alarm once it is durable: after the
// commit that set, moved or cleared it is durable, and when an activation
// finds an alarm stored (or none) in the cell. armed is false when the cell
// has no alarm (dueMS is then 0). epoch is the cell's ownership epoch (0
// without ownership). It is called on the cell's shard loop, in commit
// order per cell, and must not block: an implementation queues the bucket
// writes.
type AlarmSink interface {
	AlarmDurable(scope string, dueMS int64, armed bool, epoch uint64)
}

// AlarmPublisher is an AlarmSink that also publishes synchronously. The
// output gate calls PublishAlarm for each alarm a round of commits armed
// or moved, after the commits are durable and before it releases any reply
// of the round: an acknowledged alarm is in the wake index, so a kill
// right after the reply cannot leave it unindexed (bucket protocol section
// 6 publishes after the durable commit; this makes the reply wait for the
// publish too). A failed publish is logged and the replies go out: the
// commit is durable, and AlarmDurable, which follows as always, retries.
// Disarmed alarms are not waited for (a stale entry only costs a wake that
// finds no alarm). Called from the syncer goroutine.
type AlarmPublisher interface {
	AlarmSink
	PublishAlarm(ctx context.Context, scope string, dueMS int64, epoch uint64) error
}

// DurableAlarm is an armed alarm the output gate publishes.
type DurableAlarm struct {
	Scope string
	DueMS int64
	Epoch uint64
}

// publishTimeout bounds the PublishAlarm calls of one round.
const publishTimeout = 10 * time.Second

// durableAlarm is the armed alarm c's last commit made, for the output
// gate to publish, if it made one. On the loop, after the commit.
func (c *cell) durableAlarm() (DurableAlarm, bool) {
	n := c.alarmNote
	if n == nil || !n.ok || n.seq != c.committed {
		return DurableAlarm{}, false
	}
	var epoch uint64
	if c.log != nil {
		epoch = c.log.Epoch()
	}
	return DurableAlarm{Scope: c.scope, DueMS: n.a.AtMs, Epoch: epoch}, true
}

// publishAlarms runs PublishAlarm for the armed alarms of a round's
// batches whose commits are durable. On the syncer goroutine.
func (y *syncer) publishAlarms(batches []*syncBatch, failed func(b *syncBatch, i int) bool) {
	p, ok := y.h.cfg.AlarmSink.(AlarmPublisher)
	if !ok {
		return
	}
	var alarms []DurableAlarm
	for _, b := range batches {
		for _, x := range b.alarms {
			if !failed(b, x.i) {
				alarms = append(alarms, x.a)
			}
		}
	}
	if len(alarms) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	for _, a := range alarms {
		if err := p.PublishAlarm(ctx, a.Scope, a.DueMS, a.Epoch); err != nil {
			y.h.log.Warn("the wake index did not take a durable alarm before its reply; it is retried in the background", "scope", a.Scope, "err", err)
		}
	}
}

// ErrNotACell means Wake was given a scope that names no cell of this host.
// It has a NotACell() true method, for callers that cannot import host
// (fleet's failover sweep skips such cells).
var ErrNotACell error = notACell{}

type notACell struct{}

func (notACell) Error() string  { return "not a cell of this worker" }
func (notACell) NotACell() bool { return true }

// Wake activates the cell scope ("<Class>:<64 hex id>") so that its stored
// alarm is armed (and fires at once if it is due); it returns when the cell
// is open, or with the activation's error (such as
// *ownership.CellOwnedElsewhereError). The stored alarm decides whether
// anything runs. Safe from any goroutine.
func (h *Host) Wake(ctx context.Context, scope string) error {
	i := strings.LastIndexByte(scope, ':')
	if i < 0 || !h.hasClass(scope[:i]) || !isHexID(scope[i+1:]) {
		return fmt.Errorf("wake %s: %w", scope, ErrNotACell)
	}
	c := h.cellFor(scope[:i], scope[i+1:])
	done := make(chan error, 1)
	if !c.s.post(func() { c.unref(); c.deliver("", func() { done <- c.broken }) }) {
		return fmt.Errorf("wake %s: %w", scope, ErrClosed)
	}
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("wake %s: %w", scope, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// alarmNote is an alarm change committed but not yet durable: it is
// published when the cell's synced count reaches seq (0: the commit is
// still open).
type alarmNote struct {
	a   storage.Alarm
	ok  bool
	seq uint64
}

// noteAlarm records the alarm a commit is making (storage's OnAlarm runs
// inside Commit). On the loop.
func (c *cell) noteAlarm(a storage.Alarm, ok bool) {
	if c.s.h.cfg.AlarmSink != nil {
		c.alarmNote = &alarmNote{a: a, ok: ok}
	}
}

// alarmCommitted is called after a successful commit: it reports whether
// the commit changed the alarm (and so must become durable even if nothing
// else was written). seq is the commit's number when it counts. On the loop.
func (c *cell) alarmCommitted() bool {
	return c.alarmNote != nil && c.alarmNote.seq == 0
}

// alarmSeq gives the pending alarm change the commit's number.
func (c *cell) alarmSeq(seq uint64) {
	if c.alarmNote != nil && c.alarmNote.seq == 0 {
		c.alarmNote.seq = seq
	}
}

// alarmSynced publishes the pending alarm change once its commit is
// durable. On the loop.
func (c *cell) alarmSynced() {
	if n := c.alarmNote; n != nil && n.seq != 0 && c.synced >= n.seq {
		c.alarmNote = nil
		c.publishAlarm(n.a, n.ok)
	}
}

// publishAlarm hands a durable alarm to the sink. On the loop.
func (c *cell) publishAlarm(a storage.Alarm, ok bool) {
	sink := c.s.h.cfg.AlarmSink
	if sink == nil {
		return
	}
	var epoch uint64
	if c.log != nil {
		epoch = c.log.Epoch()
	}
	if !ok {
		a.AtMs = 0
	}
	sink.AlarmDurable(c.scope, a.AtMs, ok, epoch)
}

// alarmPublished reports whether an armed alarm may leave memory: a sink
// holds it and no change of it is waiting to become durable. On the loop.
func (c *cell) alarmPublished() bool {
	return c.s.h.cfg.AlarmSink != nil && c.alarmNote == nil
}

package host

import (
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/storage"
)

// Alarms (durable-objects.md section 5). Each cell arms one timer for the
// committed alarm; it fires through the input gate like any other event.
// Everything here runs on the cell's loop.

// alarmMaxCountedRetries is how many counted retries an alarm gets: a
// failure with that many behind it drops the alarm, so that alarm() runs
// at most seven times (the first attempt and six retries, as Cloudflare
// documents and celld does; seed 004 l.55), the last retry 64 s after
// the failure before it.
const alarmMaxCountedRetries = 6

// onAlarm is storage.Options.OnAlarm: the committed alarm changed.
func (c *cell) onAlarm(a storage.Alarm, ok bool) {
	c.noteAlarm(a, ok) // published once durable (wake.go)
	c.armAlarm(a, ok)
}

// armAlarm arms the timer of the committed alarm.
func (c *cell) armAlarm(a storage.Alarm, ok bool) {
	if c.alarmCancel != nil {
		c.alarmCancel()
		c.alarmCancel = nil
	}
	if !ok {
		return
	}
	c.alarmDue = a.AtMs
	d := time.UnixMilli(a.AtMs).Sub(c.s.h.clock.Now())
	if d < 0 {
		d = 0
	}
	c.alarmCancel = c.s.AfterFunc(d, c.fireAlarm)
}

// armStoredAlarm schedules the alarm found in a freshly opened database.
func (c *cell) armStoredAlarm() {
	a, ok, err := c.db.GetAlarm()
	if cerr := c.db.Commit(); cerr != nil && err == nil { // GetAlarm opened a read transaction
		err = cerr
	}
	if err != nil {
		c.logger().Error("read alarm: " + err.Error())
		return
	}
	c.alarmNote = nil // of an earlier activation
	c.armAlarm(a, ok)
	c.publishAlarm(a, ok) // stored, so durable

}

// fireAlarm delivers an alarm event. One alarm() runs at a time; an alarm
// that comes due meanwhile fires when the running one ends.
func (c *cell) fireAlarm() {
	c.alarmCancel = nil
	if c.alarmRunning {
		c.alarmAgain = true
		return
	}
	s := c.s
	c.deliver("", func() {
		if c.broken != nil || c.alarmRunning {
			return
		}
		c.touch()
		a, ok, err := c.db.GetAlarm()
		if err != nil || !ok {
			return
		}
		if wait := time.UnixMilli(a.AtMs).Sub(c.s.h.clock.Now()); wait > 0 { // re-armed later meanwhile
			c.alarmCancel = s.AfterFunc(wait, c.fireAlarm)
			return
		}
		if ic, internal := s.h.internal[c.class]; internal {
			c.internalAlarm(ic, a)
			return
		}
		if c.inst == nil {
			if err := c.construct(""); err != nil {
				c.alarmFailed(a, err)
				return
			}
		}
		gen := c.gen
		c.alarmRunning, c.firingGen = true, a.Generation
		s.h.counted.alarmsFired.Add(1)
		info := s.rt.NewObject()
		_ = info.Set("retryCount", a.Retry)
		_ = info.Set("isRetry", a.Retry > 0)
		_ = info.Set("scheduledTime", a.AtMs)
		fn, isFn := goja.AssertFunction(c.inst.Get("alarm"))
		if !isFn {
			c.alarmDone(gen, a, nil)
			return
		}
		v, err := fn(c.inst, info)
		if err != nil {
			c.alarmDone(gen, a, s.w.ErrorValue(err))
			return
		}
		s.w.Settle(v, func(goja.Value) { c.alarmDone(gen, a, nil) }, func(e goja.Value) {
			if e == nil {
				e = goja.Undefined()
			}
			c.alarmDone(gen, a, e)
		})
	})
}

// alarmDone ends an alarm() call: success deletes the alarm unless the
// handler re-armed it; failure reschedules it with back-off (2, 4 ... 64
// s), and drops it when it failed after alarmMaxCountedRetries counted
// retries (seven attempts). Writes made by a failed attempt are kept.
func (c *cell) alarmDone(gen int, a storage.Alarm, failure goja.Value) {
	if c.gen != gen { // the object was reset meanwhile: its reset retries
		return
	}
	c.alarmRunning = false
	c.touch()
	c.wrote = true
	if failure == nil {
		if _, err := c.db.DeleteAlarmIf(a.Generation); err != nil {
			c.logger().Error("delete alarm: " + err.Error())
		}
	} else {
		c.logger().Error("alarm() failed: " + c.s.w.ScriptErrorOf(failure).Error())
		c.alarmFailed(a, nil)
	}
	if c.alarmAgain {
		c.alarmAgain = false
		c.alarmCancel = c.s.AfterFunc(0, c.fireAlarm)
	}
}

// alarmFailed reschedules a, or drops it after too many counted failures.
func (c *cell) alarmFailed(a storage.Alarm, err error) {
	if err != nil {
		c.logger().Error("alarm: " + err.Error())
	}
	if a.CountedRetry >= alarmMaxCountedRetries {
		c.s.h.counted.alarmsDropped.Add(1)
		if _, err := c.db.DeleteAlarmIf(a.Generation); err != nil {
			c.logger().Error("delete alarm: " + err.Error())
		}
		return
	}
	shift := min(a.Retry, 6)
	next := a
	next.AtMs = c.s.h.clock.Now().UnixMilli() + 2000<<shift
	next.Retry++
	next.CountedRetry++
	if _, err := c.db.UpdateAlarm(a.Generation, next); err != nil {
		c.logger().Error("reschedule alarm: " + err.Error())
	}
}

package bucketkey

import (
	"strings"
	"time"
)

// The wake index (bucket protocol, section 6):
//
//	wake/entries/<YYYY-MM-DDTHH:MM>/<scope>
//	wake/retired/<YYYY-MM-DDTHH:MM>/<scope>
//
// <YYYY-MM-DDTHH:MM> is the UTC minute floor of the alarm's due time, 16
// characters, so that a lexical LIST walks the index in due order.

// MinuteLayout is the time layout of a wake key's minute.
const MinuteLayout = "2006-01-02T15:04"

// Due times outside the range a 16-character minute can spell are clamped
// into it: an alarm due before 1970 is due now, and one after 9999 never.
var (
	minMinuteMS = int64(0)
	maxMinuteMS = time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC).UnixMilli()
)

// WakeMinute returns the minute of a wake key for an alarm due at dueMS
// (Unix ms): the UTC minute floor, "YYYY-MM-DDTHH:MM", clamped to
// 1970-01-01T00:00 .. 9999-12-31T23:59.
func WakeMinute(dueMS int64) string {
	dueMS = min(max(dueMS, minMinuteMS), maxMinuteMS)
	return time.UnixMilli(dueMS).UTC().Format(MinuteLayout)
}

// MinuteMS returns the Unix ms of the start of the minute WakeMinute(dueMS)
// names.
func MinuteMS(dueMS int64) int64 {
	dueMS = min(max(dueMS, minMinuteMS), maxMinuteMS)
	return dueMS - dueMS%60000
}

// WakeEntry is a key of the wake index: the entry (or, Retired, the
// retirement) of scope's alarm due in the minute that starts at MinuteMS.
type WakeEntry struct {
	Retired  bool
	MinuteMS int64 // Unix ms of the minute's start (a multiple of 60 000)
	Scope    string
}

// String returns the key of e.
func (e WakeEntry) String() string {
	if e.Retired {
		return WakeRetiredKey(e.MinuteMS, e.Scope)
	}
	return WakeEntryKey(e.MinuteMS, e.Scope)
}

// WakeEntryKey returns "wake/entries/<minute of dueMS>/<scope>".
func WakeEntryKey(dueMS int64, scope string) string {
	return WakeEntriesPrefix + WakeMinute(dueMS) + "/" + scope
}

// WakeRetiredKey returns "wake/retired/<minute of dueMS>/<scope>".
func WakeRetiredKey(dueMS int64, scope string) string {
	return WakeRetiredPrefix + WakeMinute(dueMS) + "/" + scope
}

// WakeEntriesUpTo returns the key that every entry due in the minute of
// nowMS, or earlier, sorts at or before: LIST WakeEntriesPrefix and stop
// at the first key greater than it.
func WakeEntriesUpTo(nowMS int64) string {
	return WakeEntriesPrefix + WakeMinute(nowMS) + "/\U0010FFFF"
}

// ParseWakeKey parses a key of the wake index, entry or retired. It accepts
// exactly the keys WakeEntryKey and WakeRetiredKey return for a valid
// scope.
func ParseWakeKey(key string) (WakeEntry, error) {
	var e WakeEntry
	rest, ok := strings.CutPrefix(key, WakeEntriesPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(key, WakeRetiredPrefix)
		if !ok {
			return WakeEntry{}, invalid(key, `does not start with "wake/entries/" or "wake/retired/"`)
		}
		e.Retired = true
	}
	minute, scope, ok := strings.Cut(rest, "/")
	if !ok {
		return WakeEntry{}, invalid(key, "want <YYYY-MM-DDTHH:MM>/<scope> after the prefix")
	}
	t, err := time.Parse(MinuteLayout, minute)
	if err != nil || t.Format(MinuteLayout) != minute || t.UnixMilli() < minMinuteMS {
		return WakeEntry{}, invalid(key, "minute is not YYYY-MM-DDTHH:MM from 1970 on")
	}
	if err := CheckScope(scope); err != nil {
		return WakeEntry{}, invalid(key, err.Error())
	}
	e.MinuteMS, e.Scope = t.UnixMilli(), scope
	return e, nil
}

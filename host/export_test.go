package host

import "time"

// WithClock sets idle eviction's clock (Config option for tests).
func WithClock(now func() time.Time) func(*Config) {
	return func(c *Config) { c.clock = now }
}

// EvictIdle runs one idle-eviction pass on every shard, as the ticker
// does, waits for it, and returns how many objects it evicted.
func EvictIdle(h *Host) int {
	n := 0
	for _, s := range h.shards {
		done := make(chan int, 1)
		if !s.post(func() { done <- s.evictIdle() }) {
			continue
		}
		n += <-done
	}
	return n
}

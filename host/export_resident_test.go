package host

import "time"

// EvictIdleBefore runs every shard's idle eviction with cutoff and waits.
func (h *Host) EvictIdleBefore(cutoff time.Time) {
	for _, s := range h.shards {
		done := make(chan struct{})
		s.post(func() { s.evictIdleBefore(cutoff); close(done) })
		<-done
	}
}

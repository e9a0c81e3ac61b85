package host

import "time"

// EvictIdleBefore runs every shard's idle eviction with cutoff and waits.
func (h *Host) EvictIdleBefore(cutoff time.Time) {
	for _, s := range h.shards {
		done := make(chan struct{})
		if s.post(func() { s.evictIdleBefore(cutoff); close(done) }) {
			<-done
		}
	}
}

// ShardOf returns the index of the shard a cell lives in.
func ShardOf(h *Host, class, id string) int { return h.shardFor(class + ":" + id).idx }

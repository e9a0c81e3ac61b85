package host

// EvictIdleNow runs every shard's idle eviction once, on its loop, and
// returns how many cells it evicted (tests drive eviction instead of
// waiting for the ticker).
func (h *Host) EvictIdleNow() int {
	n := make(chan int, len(h.shards))
	for _, s := range h.shards {
		s.post(func() {
			before := 0
			for _, c := range h.cellsOf(s) {
				if c.db != nil {
					before++
				}
			}
			s.evictIdle()
			after := 0
			for _, c := range h.cellsOf(s) {
				if c.db != nil {
					after++
				}
			}
			n <- before - after
		})
	}
	total := 0
	for range h.shards {
		total += <-n
	}
	return total
}

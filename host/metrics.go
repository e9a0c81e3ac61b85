package host

import "time"

// Metrics receives what the host does that a metrics exporter counts and
// times beyond Stats (cmd/cellhost's /metrics). Its methods are called from
// the host's goroutines and must not block.
type Metrics interface {
	// CommitRound reports one round of the output gate (durable.go): dbs
	// databases made durable together (local sync, then in the log mode
	// their LTX uploads and acknowledgement checks), failed of them not,
	// in d from the round's start to its end.
	CommitRound(dbs, failed int, d time.Duration)
}

// countErrs is how many of errs are non-nil.
func countErrs(errs []error) int {
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	return n
}

// CellCounts are the cells a host knows, by state.
type CellCounts struct {
	Resident int // holding their lease (their database open, or parked)
	Open     int // whose database is open or opening (park.go)
	Known    int // records: resident or not, still referenced
}

// CellCounts counts the host's cells. Safe from any goroutine: it asks
// every shard on its loop.
func (h *Host) CellCounts() CellCounts {
	var out CellCounts
	for _, s := range h.shards {
		ch := make(chan [2]int, 1)
		if s.post(func() { ch <- [2]int{s.nResident, s.open.n} }) {
			n := <-ch
			out.Resident += n[0]
			out.Open += n[1]
		}
	}
	h.mu.Lock()
	out.Known = len(h.cells)
	h.mu.Unlock()
	return out
}

// HasClass reports whether class is one of the worker's Durable Object
// classes (exporters label requests with it only then, so that a label's
// values stay bounded whatever paths clients send).
func (h *Host) HasClass(class string) bool { return h.classes[class] }

package host

import "testing"

// TestLogSyncer_Linger pins the log syncer's waiting: only after a round
// that uploaded a single cell's log (the file store waits after rounds
// that several writers shared).
func TestLogSyncer_Linger(t *testing.T) {
	var y Lingerer = newLogSyncer(nil)
	for _, tt := range []struct {
		prev int
		wait bool
	}{{0, false}, {1, true}, {2, false}, {32, false}} {
		if got := y.Linger(tt.prev); (got > 0) != tt.wait {
			t.Errorf("Linger(%d) = %v, want waiting %v", tt.prev, got, tt.wait)
		}
	}
}

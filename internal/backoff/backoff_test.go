package backoff

import (
	"context"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	for _, tt := range []struct {
		failures int
		want     time.Duration
	}{{-1, 50}, {0, 50}, {1, 50}, {2, 100}, {3, 200}, {7, 3200}, {8, 3200}, {1000, 3200}} {
		if got := Delay(50, tt.failures); got != tt.want {
			t.Errorf("Delay(50, %d) = %d, want %d", tt.failures, got, tt.want)
		}
	}
	p := Policy{First: 50 * time.Millisecond, Max: 2 * time.Second}
	var got []time.Duration
	for n := 1; n <= 8; n++ {
		got = append(got, p.Delay(n))
	}
	want := []time.Duration{50, 100, 200, 400, 800, 1600, 2000, 2000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("Policy{50ms, 2s} delays %v, want %v ms", got, want)
		}
	}
}

func TestWait_EndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if (Policy{First: time.Hour}).Wait(ctx, 1) {
		t.Fatal("Wait of a canceled context reported the full delay")
	}
	if !(Policy{First: time.Nanosecond}).Wait(context.Background(), 1) {
		t.Fatal("Wait of a live context did not report the full delay")
	}
}

package fleet

import (
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	tick := 100 * time.Millisecond
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{0, tick}, {1, tick}, {2, 2 * tick}, {3, 4 * tick}, {4, 8 * tick},
		{6, 32 * tick}, {7, 64 * tick}, {8, 64 * tick}, {1000, 64 * tick},
	}
	for _, tt := range tests {
		if got := RetryDelay(tick, tt.failures); got != tt.want {
			t.Errorf("RetryDelay(%v, %d) = %v, want %v", tick, tt.failures, got, tt.want)
		}
	}
}

func TestJittered(t *testing.T) {
	d := time.Second
	tests := []struct {
		frac float64
		want time.Duration
	}{
		{0, d}, {0.5, d + d/4}, {0.999, d + time.Duration(0.999*float64(d)/2)},
		{-1, d}, {1, d}, // out of range: no jitter
	}
	for _, tt := range tests {
		if got := Jittered(d, tt.frac); got != tt.want {
			t.Errorf("Jittered(%v, %v) = %v, want %v", d, tt.frac, got, tt.want)
		}
	}
}

func TestMayResend(t *testing.T) {
	tests := []struct {
		stage ForwardStage
		want  bool
	}{
		{StageNotSent, true},
		{StageNotOwner, true},
		{StageSent, false},
		{StageAnswered, false},
	}
	for _, tt := range tests {
		if got := MayResend(tt.stage); got != tt.want {
			t.Errorf("MayResend(%d) = %v, want %v", tt.stage, got, tt.want)
		}
	}
}

func TestClockOK(t *testing.T) {
	skew := 30 * time.Second
	tests := []struct {
		name      string
		sent, now int64
		want      bool
	}{
		{"Same", 1000, 1000, true},
		{"Late", 1000, 31000, true},
		{"TooLate", 1000, 31001, false},
		{"Early", 31000, 1000, true},
		{"TooEarly", 31001, 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClockOK(tt.sent, tt.now, skew); got != tt.want {
				t.Errorf("ClockOK(%d, %d) = %v, want %v", tt.sent, tt.now, got, tt.want)
			}
		})
	}
}

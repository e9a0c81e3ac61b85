package memrelief

import (
	"runtime"
	"testing"
	"time"
)

// TestRelief_OncePerQuietPeriod: memory is given back only after Quiet
// without activity, only when the heap holds more than twice the live heap
// plus the slack, and once per quiet period; activity starts a new one.
func TestRelief_OncePerQuietPeriod(t *testing.T) {
	var activity int64
	stats := Stats{Live: 12 << 20, Retained: 180 << 20}
	frees := 0
	t0 := time.Unix(1000, 0)
	r := New(Config{Activity: func() int64 { return activity }, Quiet: 30 * time.Second,
		Read: func() Stats { return stats }, Free: func() { frees++ }, Collect: func() {}}, t0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	if r.Check(at(29)) || frees != 0 {
		t.Fatal("freed before the quiet period passed")
	}
	if !r.Check(at(30)) || frees != 1 {
		t.Fatal("not freed after 30 s of quiet with 180 MB held for 12 MB live")
	}
	if r.Check(at(60)) || frees != 1 {
		t.Fatal("freed twice in one quiet period")
	}
	activity++ // a request: a new period starts at 61
	if r.Check(at(61)) || r.Check(at(90)) || frees != 1 {
		t.Fatal("freed within 30 s of activity")
	}
	stats.Retained = 40 << 20 // under 2 x 12 + 16 MB: nothing to give back
	if r.Check(at(91)) || frees != 1 {
		t.Fatal("freed with little held")
	}
	stats.Retained = 41 << 20
	if !r.Check(at(92)) || frees != 2 || r.Frees != 2 {
		t.Fatal("not freed once more was held in the same quiet period")
	}
}

// TestRelief_StaleLiveFigure: the last collection ran during the burst and
// counted its garbage live (issue 23's 4 200 unsent bodies: nothing was
// given back for as long as the process stayed idle). Once quiet, Relief
// collects, reads the fresh figure and gives the memory back; it collects
// at most once per quiet period.
func TestRelief_StaleLiveFigure(t *testing.T) {
	var activity int64
	stats := Stats{Live: 75 << 20, Retained: 160 << 20} // 160 <= 2 x 75 + 16
	frees, collects := 0, 0
	var fresh uint64 = 12 << 20 // what a collection finds live
	t0 := time.Unix(1000, 0)
	r := New(Config{Activity: func() int64 { return activity }, Quiet: 30 * time.Second,
		Read: func() Stats { return stats }, Free: func() { frees++ },
		Collect: func() { collects++; stats.Live = fresh }}, t0)
	if !r.Check(t0.Add(30*time.Second)) || collects != 1 || frees != 1 {
		t.Fatalf("quiet with a stale live figure: %d collections, %d frees; want 1 and 1", collects, frees)
	}
	activity++
	stats, fresh = Stats{Live: 30 << 20, Retained: 70 << 20}, 30<<20 // truly live: nothing to give
	r.Check(t0.Add(31 * time.Second))
	for s := 61; s < 120; s++ {
		r.Check(t0.Add(time.Duration(s) * time.Second))
	}
	if collects != 2 || frees != 1 {
		t.Fatalf("a quiet period with nothing to give back: %d collections, %d frees; want 2 and 1", collects, frees)
	}
}

// TestReadStats reads real figures: some live heap, at least as much held.
func TestReadStats(t *testing.T) {
	runtime.GC() // live is as of the last collection
	s := ReadStats()
	if s.Live == 0 || s.Retained < s.Live {
		t.Errorf("stats %+v", s)
	}
}

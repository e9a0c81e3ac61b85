package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cellhost/cellhost/fleet"
)

// statusSample is how often a serve node samples its request count for
// the requests/s figure of its status.
const statusSample = 5 * time.Second

// nodeStatus is a serve node's status as a ping answers it (cellhost
// diagnose): the current application's load and counters (since that
// deployment started) and the wake index's and GC's counters.
type nodeStatus struct {
	app   *servedApp
	wake  *fleet.Wake
	start time.Time

	log *slog.Logger // the alarms-fired counter is logged when it changes

	mu         sync.Mutex
	lastAt     time.Time
	lastReq    int64
	rate       float64
	lastAlarms int64
}

func newNodeStatus(app *servedApp, wake *fleet.Wake, log *slog.Logger) *nodeStatus {
	return &nodeStatus{app: app, wake: wake, log: log, start: time.Now(), lastAt: time.Now()}
}

// sample updates the requests/s figure every statusSample until ctx ends.
func (n *nodeStatus) sample(ctx context.Context) {
	t := time.NewTicker(statusSample)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			st, ok := n.app.hostStats()
			if !ok {
				continue
			}
			n.mu.Lock()
			if dt := now.Sub(n.lastAt).Seconds(); dt > 0 && st.Requests >= n.lastReq {
				n.rate = float64(st.Requests-n.lastReq) / dt
			}
			n.lastAt, n.lastReq = now, st.Requests
			logAlarms := st.AlarmsFired != n.lastAlarms
			n.lastAlarms = st.AlarmsFired
			n.mu.Unlock()
			if logAlarms {
				n.log.Info("counters", "alarms_fired", st.AlarmsFired, "events", st.Events, "requests", st.Requests,
					"resident_cells", st.ResidentCells, "websockets", st.WebSockets)
			}
		}
	}
}

// status is fleet.ServerConfig.Status.
func (n *nodeStatus) status() *fleet.NodeStatus {
	out := &fleet.NodeStatus{UptimeMS: time.Since(n.start).Milliseconds(), Wake: n.wake.Stats()}
	if st, ok := n.app.hostStats(); ok {
		out.ResidentCells, out.WebSockets = st.ResidentCells, st.WebSockets
		out.Requests, out.Events, out.AlarmsFired = st.Requests, st.Events, st.AlarmsFired
	}
	n.mu.Lock()
	out.RequestsPerSec = n.rate
	n.mu.Unlock()
	return out
}

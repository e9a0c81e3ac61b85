package host

import "sync/atomic"

// counters are the host's running totals (Stats).
type counters struct {
	requests    atomic.Int64 // HTTP requests the front received
	events      atomic.Int64 // events delivered to objects (fetch, RPC, alarm, WebSocket)
	alarmsFired atomic.Int64 // alarm() invocations (retries included)
	parked      atomic.Int64 // databases closed with their cell staying resident (park.go)
	reopened    atomic.Int64 // parked databases opened again

	alarmsDropped atomic.Int64 // alarms deleted after too many failed attempts
	memoryResets  atomic.Int64 // events interrupted past Config.MemoryLimit (memwatch.go)
	cpuResets     atomic.Int64 // events interrupted past Config.CPULimit
}

// Stats is a running node's load and counters (cellhost diagnose asks
// serve nodes for them over the signed peer protocol).
type Stats struct {
	ResidentCells int   // cells holding their lease (their database open, or closed while idle: park.go)
	WebSockets    int   // client connections held here: objects' own and relayed for objects elsewhere (edge)
	Requests      int64 // HTTP requests received
	Events        int64 // events delivered to objects
	AlarmsFired   int64 // alarm() invocations
	AlarmsDropped int64 // alarms given up after too many failed attempts
	MemoryResets  int64 // objects interrupted (and reset) past the memory limit
	CPUResets     int64 // objects interrupted (and reset) past the CPU limit
	Parked        int64 // databases closed while their cell stayed resident (park.go)
	Reopened      int64 // parked databases opened again
}

// Stats returns the host's load and counters. Safe from any goroutine.
func (h *Host) Stats() Stats {
	resident, _ := h.ResidentCells()
	h.sockets.mu.Lock()
	ws := len(h.sockets.conns)
	h.sockets.mu.Unlock()
	if p := h.cfg.Placement; p != nil {
		ws += p.OpenSockets() // client connections held here for objects elsewhere
	}
	return Stats{ResidentCells: resident, WebSockets: ws, Requests: h.counted.requests.Load(),
		Events: h.counted.events.Load(), AlarmsFired: h.counted.alarmsFired.Load(),
		AlarmsDropped: h.counted.alarmsDropped.Load(), MemoryResets: h.counted.memoryResets.Load(),
		CPUResets: h.counted.cpuResets.Load(), Parked: h.counted.parked.Load(), Reopened: h.counted.reopened.Load()}
}

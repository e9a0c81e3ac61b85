package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/metrics"
)

// This collector lives in cmd, where host and fleet meet: internal/metrics
// stays below both (it knows the bucket's keys and the stores only).

// metricsSnapshot is the running totals and levels a scrape reads from the node:
// the serving host's (HostOK false while none serves: a deployment switch
// or a rejoin), the wake index's, and the lease's.
type metricsSnapshot struct {
	HostOK    bool
	Host      host.Stats
	Cells     host.CellCounts
	Wake      *fleet.WakeStats
	LeaseHeld bool // the node may acknowledge writes (ownership.Node.CanAck)
}

// watchSnapshot registers on s a collector calling f once per scrape. The
// host's counters restart with each host (a new deployment, a rejoin),
// which Prometheus' rate() and increase() take as a counter reset.
func watchSnapshot(s *metrics.Set, f func() metricsSnapshot) {
	s.Registry.MustRegister(&snapshotCollector{f: f})
}

type snapDesc struct {
	d     *prometheus.Desc
	t     prometheus.ValueType
	value func(*metricsSnapshot) float64
	host  bool // from the host: absent while none serves
	wake  bool // from the wake index
}

func desc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(metrics.Namespace+"_"+name, help, nil, nil)
}

var snapDescs = []snapDesc{
	{d: desc("cells_resident", "Objects holding their lease here (their database open, or parked)."), t: prometheus.GaugeValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Cells.Resident) }},
	{d: desc("cells_open", "Objects whose database is open."), t: prometheus.GaugeValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Cells.Open) }},
	{d: desc("cells_owned", "Objects this node owns (own.json names it): the resident ones, since a cell holds its lease while resident."), t: prometheus.GaugeValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.ResidentCells) }},
	{d: desc("cells_known", "Object records the host keeps (resident or not)."), t: prometheus.GaugeValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Cells.Known) }},
	{d: desc("websockets", "Client WebSocket connections held here (objects' own and relayed)."), t: prometheus.GaugeValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.WebSockets) }},
	{d: desc("events_total", "Events delivered to objects (fetch, RPC, alarm, WebSocket)."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.Events) }},
	{d: desc("alarms_fired_total", "alarm() invocations, retries included."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.AlarmsFired) }},
	{d: desc("alarms_dropped_total", "Alarms given up after too many failed attempts."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.AlarmsDropped) }},
	{d: desc("memory_limit_resets_total", "Objects interrupted and reset because one event grew the heap past the memory limit."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.MemoryResets) }},
	{d: desc("cpu_limit_resets_total", "Objects interrupted and reset because one event ran past the CPU limit."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.CPUResets) }},
	{d: desc("databases_parked_total", "Databases closed while their object stayed resident (the open-database bound)."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.Parked) }},
	{d: desc("databases_reopened_total", "Parked databases opened again."), t: prometheus.CounterValue, host: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Host.Reopened) }},
	{d: desc("lease_held", "1 while this node holds its lease and may acknowledge writes, 0 while fenced or rejoining."), t: prometheus.GaugeValue,
		value: func(s *metricsSnapshot) float64 { return b2f(s.LeaseHeld) }},
	{d: desc("wake_published_total", "Wake index entries written."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.Published) }},
	{d: desc("wake_retired_total", "Wake index entries retired."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.Retired) }},
	{d: desc("wake_publish_errors_total", "Wake index writes that failed."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.PublishErrors) }},
	{d: desc("wake_woken_total", "Objects activated by the wake index for their alarm."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.Woken) }},
	{d: desc("wake_errors_total", "Activations by the wake index that failed."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.WakeErrors) }},
	{d: desc("waker_held", "1 while this node is the fleet's elected waker (wake/waker.json)."), t: prometheus.GaugeValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return b2f(s.Wake.WakerHeld) }},
	{d: desc("gc_passes_total", "Dead-node GC passes run as the waker."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.GC.Passes) }},
	{d: desc("gc_swept_nodes_total", "Dead nodes whose node-cells markers were all deleted."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.GC.Swept) }},
	{d: desc("gc_retired_nodes_total", "Dead node records removed."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.GC.Retired) }},
	{d: desc("gc_retries_total", "GC sweeps that failed and backed off."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.GC.Retries) }},
	{d: desc("gc_marker_deletes_total", "node-cells markers deleted by GC."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.GC.Deletes) }},
	{d: desc("sweep_taken_total", "Objects of dead nodes taken over by the failover sweep."), t: prometheus.CounterValue, wake: true,
		value: func(s *metricsSnapshot) float64 { return float64(s.Wake.GC.Taken) }},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

type snapshotCollector struct{ f func() metricsSnapshot }

func (c *snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range snapDescs {
		ch <- d.d
	}
}

func (c *snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.f()
	for _, d := range snapDescs {
		if (d.host && !s.HostOK) || (d.wake && s.Wake == nil) {
			continue
		}
		ch <- prometheus.MustNewConstMetric(d.d, d.t, d.value(&s))
	}
}

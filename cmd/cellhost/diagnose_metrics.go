package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrapeMetrics reads a node's /metrics at addr (its peer address, where
// serve answers it unless --admin-listen moved it) and parses it with
// Prometheus' own text parser.
func scrapeMetrics(ctx context.Context, addr string) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics answered %s (the node may serve it on its --admin-listen address)", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(io.LimitReader(resp.Body, 16<<20))
}

// metricSum is the sum of a family's samples whose labels include every
// pair of match (counters, gauges; a histogram's count), and whether the
// family is there.
func metricSum(fams map[string]*dto.MetricFamily, name string, match ...string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
	sum := 0.0
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(match); i += 2 {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == match[i] && l.GetValue() == match[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum, true
}

// printMetrics prints the figures an operator alerts on, from the node's
// own /metrics: the same numbers Prometheus scrapes.
func printMetrics(w io.Writer, fams map[string]*dto.MetricFamily) {
	v := func(name string, match ...string) string {
		x, ok := metricSum(fams, name, match...)
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%g", x)
	}
	// Requests by status class.
	byClass := map[string]float64{}
	if f, ok := fams["cellhost_http_requests_total"]; ok {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "code" && l.GetValue() != "" {
					byClass[l.GetValue()[:1]+"xx"] += m.GetCounter().GetValue()
				}
			}
		}
	}
	var codes []string
	for c, n := range byClass {
		codes = append(codes, fmt.Sprintf("%s %g", c, n))
	}
	sort.Strings(codes)
	if len(codes) == 0 {
		codes = []string{"none"}
	}
	fmt.Fprintf(w, "      metrics: requests %s; commits %s (%s failed); LTX uploads %s (%s bytes)\n",
		strings.Join(codes, ", "), v("cellhost_commits_total"), v("cellhost_commit_failures_total"),
		v("cellhost_ltx_uploads_total"), v("cellhost_ltx_upload_bytes_total"))
	fmt.Fprintf(w, "      metrics: bucket %s operations, %s faults; lease held %s, %s renewals, %s fences, %s rejoins\n",
		v("cellhost_bucket_operations_total"), v("cellhost_bucket_errors_total", "error", "error"),
		v("cellhost_lease_held"), v("cellhost_lease_renewals_total"), v("cellhost_lease_fences_total"), v("cellhost_lease_rejoins_total"))
	fmt.Fprintf(w, "      metrics: cells %s resident, %s open, %s owned; %s WebSockets; alarms %s fired, %s dropped; resets: %s memory limit, %s CPU limit\n",
		v("cellhost_cells_resident"), v("cellhost_cells_open"), v("cellhost_cells_owned"), v("cellhost_websockets"),
		v("cellhost_alarms_fired_total"), v("cellhost_alarms_dropped_total"),
		v("cellhost_memory_limit_resets_total"), v("cellhost_cpu_limit_resets_total"))
	fmt.Fprintf(w, "      metrics: %s goroutines, %s bytes heap in use\n", v("go_goroutines"), v("go_memstats_heap_inuse_bytes"))
}

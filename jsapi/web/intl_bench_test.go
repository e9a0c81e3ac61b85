package web

import (
	"syscall"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// BenchmarkIntlDateTimeFormat times a DateTimeFormat construction, a
// format and Date#toLocaleString in goja, as testdata/intl-probe/bench.sh
// times them on workerd (each op is one construction, or one format, of
// the same call; bench.sh runs both and prints the ratios).
func BenchmarkIntlDateTimeFormat(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"construct", `new Intl.DateTimeFormat("de-DE", {dateStyle: "medium", timeStyle: "short", timeZone: "Europe/Berlin"})`},
		{"format", `f.format(d)`},
		{"construct-components", `new Intl.DateTimeFormat("en-US", {weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short", timeZone: "America/New_York"})`},
		{"toLocaleString", `date.toLocaleString("de-DE", {timeZone: "Europe/Berlin"})`},
		{"toLocaleString-default", `date.toLocaleString()`},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt, _ := newWebRuntime(b)
			if _, err := rt.RunString(`var d = Date.UTC(2026, 2, 8, 12, 0, 0); var f = new Intl.DateTimeFormat("de-DE", {dateStyle: "medium", timeStyle: "short", timeZone: "Europe/Berlin"}); f.format(d); var date = new Date(d);`); err != nil {
				b.Fatal(err)
			}
			fn, err := rt.RunString(`(function (n) { let x; for (let i = 0; i < n; i++) x = ` + c.src + `; return x; })`)
			if err != nil {
				b.Fatal(err)
			}
			call, _ := goja.AssertFunction(fn)
			b.ResetTimer()
			cpu0 := processCPU()
			if _, err := call(goja.Undefined(), rt.ToValue(b.N)); err != nil {
				b.Fatal(err)
			}
			// the machine is shared: CPU time per op (this process's,
			// GC included) varies less than wall time
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the user+system CPU time of this process in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

//go:build !race

package web

// probeStride: TestIntlProbe computes every 10th value by default.
const probeStride = 10

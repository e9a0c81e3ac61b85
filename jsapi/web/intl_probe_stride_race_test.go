//go:build race

package web

// probeStride: under the race detector (CI) goja runs several times
// slower; TestIntlProbe computes every 40th value.
const probeStride = 40

//go:build race

package storage_test

// raceEnabled: the race detector is on. Tests whose loops check logic on
// one goroutine (nothing the detector can find) run a covering subset of
// their cases then, so that `go test -race ./...` stays within its time
// budget; without -race they run every case.
const raceEnabled = true

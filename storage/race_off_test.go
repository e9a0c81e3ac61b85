//go:build !race

package storage_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false

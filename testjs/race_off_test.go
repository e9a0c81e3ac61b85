//go:build !race

package testjs

// raceEnabled: the race detector is on (see libsSlowUnderRace).
const raceEnabled = false

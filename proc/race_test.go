//go:build race

package proc

// raceOn reports whether the tests were built with the race detector.
// internal/testenv says so too, but it imports this package.
const raceOn = true

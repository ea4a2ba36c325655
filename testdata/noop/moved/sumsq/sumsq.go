// Package sumsq adds up squares. Its first version is honestly slow: it
// squares with math.Pow, keeps every square in an intermediate slice, and
// round-trips each one through text before adding it up.
package sumsq

// Package sumsq adds up squares. Its first version is honestly slow: it
// squares with math.Pow, keeps every square in an intermediate slice, and
// round-trips each one through text before adding it up.
package sumsq

import "strconv"

// SumSquares returns the sum of the squares of xs.
func SumSquares(xs []int) int {
	squares := make([]string, 0)
	for _, x := range xs {
		sq := float64(x) * float64(x)
		squares = append(squares, strconv.FormatFloat(sq, 'f', 0, 64))
	}
	total := 0
	for _, s := range squares {
		n, err := strconv.Atoi(s)
		if err != nil {
			panic(err)
		}
		total += n
	}
	return total
}

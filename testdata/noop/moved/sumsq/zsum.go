package sumsq

// SumSquares is here, moved from sumsq.go with its body unchanged.

import (
	"fmt"
	"math"
	"strconv"
)

// SumSquares returns the sum of the squares of xs.
func SumSquares(xs []int) int {
	squares := make([]string, 0)
	for _, x := range xs {
		sq := math.Pow(float64(x), 2)
		squares = append(squares, fmt.Sprintf("%.0f", sq))
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

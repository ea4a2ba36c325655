package testenv

// SlowSum returns a Go module, as file names and contents, whose package
// sum has an honestly slow Sum: each int goes through text and back. Its
// sum/sum_test.go has TestSum and input(n), the n ints a benchmark adds
// up, then benchmarks. It is a fresh map: add files, or replace sum.go.
// The hack check's and the hold-out's job tests use it.
func SlowSum(module, benchmarks string) map[string]string {
	return map[string]string{
		"go.mod":          "module " + module + "\n\ngo 1.24\n",
		"sum/sum.go":      slowSumGo,
		"sum/sum_test.go": slowSumTest + benchmarks,
	}
}

const slowSumGo = `package sum

import (
	"fmt"
	"strconv"
)

// Sum adds xs up, slowly: each one through text.
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		n, _ := strconv.Atoi(fmt.Sprint(x))
		t += n
	}
	return t
}
`

const slowSumTest = `package sum

import "testing"

func input(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i*7%13 - 6
	}
	return xs
}

func TestSum(t *testing.T) {
	for _, xs := range [][]int{nil, {1}, {2, 3}, {-4, 4, 5}, input(7)} {
		want := 0
		for _, x := range xs {
			want += x
		}
		if got := Sum(xs); got != want {
			t.Errorf("Sum(%v) = %d, want %d", xs, got, want)
		}
	}
}
`

package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ParseSize reads a size such as 4G, 512M, 1.5GiB or 1048576 (bytes);
// K, M, G and T are powers of 1024. "" is 0.
func ParseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	num := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I"), " ")
	mult := int64(1)
	if n := len(num); n > 0 {
		if i := strings.IndexByte("KMGT", num[n-1]); i >= 0 {
			mult = 1 << (10 * (i + 1))
			num = num[:n-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || f <= 0 || f*float64(mult) > math.MaxInt64/2 {
		return 0, errors.New("want a size such as 4G, 512M or a number of bytes")
	}
	return int64(f * float64(mult)), nil
}

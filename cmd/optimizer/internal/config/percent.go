package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Percent is the value of --min-speedup: a number of percent, written 5 or
// 5%. It is a pflag.Value bound to a float64 of percent.
type Percent struct{ P *float64 }

func (p Percent) String() string {
	if p.P == nil {
		return "0"
	}
	return strconv.FormatFloat(*p.P, 'g', -1, 64)
}

// Set parses s, with or without a trailing %. Its error says what a good
// value looks like; pflag names the flag and the value given.
func (p Percent) Set(s string) error {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return errors.New("want a percentage, such as 5 or 5%")
	}
	*p.P = v
	return nil
}

func (p Percent) Type() string { return "percent" }

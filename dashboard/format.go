package dashboard

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/report"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"short":   shortHash,
	"speedup": speedupText,
	"percent": func(f float64) string { return percentText(f) },
	"f1":      func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"px":      func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"time":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"dict":    dict,
}

func itoa(n int) string { return strconv.Itoa(n) }

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// speedupText is "11.8×", to three significant digits, as the text
// report writes a speedup.
func speedupText(x float64) string {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return report.SigDigits(x, 3) + "×"
}

// intervalText is "[1.02×, 1.10×]", as the text report writes it. Each
// bound has the digits that keep it apart from 1× and from the threshold
// 1+minSpeedup. So a lower bound of 1.0475 is 1.048×, not 1.05×.
func intervalText(ci *[2]float64, minSpeedup float64) string {
	if ci == nil || (ci[0] == 0 && ci[1] == 0) {
		return "-"
	}
	return report.IntervalText(*ci, 1+minSpeedup)
}

// percentText is a fraction as a percentage with no useless digits: 0.05 is "5".
func percentText(frac float64) string {
	return fmt.Sprintf("%.4g", frac*100)
}

// shortDuration is "4.1s", "2m05s", "1h02m".
func shortDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "-"
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%.0fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

func secondsText(s float64) string {
	if s <= 0 {
		return "-"
	}
	return shortDuration(time.Duration(s * float64(time.Second)))
}

// valueText is a benchmark value with its unit: "51.2µs" for sec/op.
func valueText(unit string, v float64) string {
	if unit == "sec/op" || unit == "s" {
		return shortSeconds(v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " " + unit
}

func shortSeconds(v float64) string {
	for _, u := range []struct {
		scale float64
		name  string
	}{{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}} {
		if math.Abs(v) >= u.scale || u.name == "ns" {
			return strconv.FormatFloat(v/u.scale, 'g', 3, 64) + u.name
		}
	}
	return ""
}

// lines splits s into lines, without a trailing empty one.
func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// dict makes a map of its key, value arguments, for passing several values
// to a template.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

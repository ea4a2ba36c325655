// Package excerpt picks what a person reads first in a command's output:
// the lines that name failures, without terminal escapes.
package excerpt

import (
	"regexp"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
)

// escapes matches terminal escape sequences: CSI (colours, cursor moves),
// OSC (titles, links) and the two-byte ones.
var escapes = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// Strip removes terminal escape sequences, and the carriage returns
// of progress lines, from a command's output.
func Strip(s string) string {
	s = escapes.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// failureLine matches the lines in which test runners name a failure. For
// Go, that is "--- FAIL", the "file_test.go:20: got 0, want 9" lines of
// t.Error and t.Fatal, the compiler's "file.go:16:3: ...", and panics. For
// others, it is pytest's "FAILED" summary and "E " assertion lines, node's
// TAP "not ok" and spec "✖", and vitest's "FAIL" and "×". It also matches
// the error lines of tracebacks and stack traces.
var failureLine = regexp.MustCompile(`^(?:\s*--- FAIL|FAIL\b|\s*FAIL\s|FAILED\s|ERROR\s|E\s|\s*not ok\b|\s*✖|\s*×|panic:|\s*[\w./-]+\.go:\d+(?::\d+)?: |\s*[A-Za-z_.]*(?:Error|Exception)\b.*:|\s*AssertionError|\s+(?:error|expected|actual):)`)

// blockStart matches a YAML block scalar's opening, as node's TAP reporter
// writes a multi-line error: "error: |-". The lines after it say what failed.
var blockStart = regexp.MustCompile(`:\s*[|>][-+]?$`)

// KeyLines picks at most n lines of a command's output for a person to read
// first. These are the lines that name failures, in order and each once;
// without any, the last lines. more counts the lines left out. Terminal
// escapes are stripped.
func KeyLines(output string, n int) (lines []string, more int) {
	output = strings.TrimRight(Strip(output), "\n")
	if output == "" || n <= 0 {
		return nil, 0
	}
	all := strings.Split(output, "\n")
	if len(all) <= n {
		return all, 0
	}
	for i := 0; i < len(all) && len(lines) < n; i++ {
		l := all[i]
		if !failureLine.MatchString(l) || slices.Contains(lines, l) {
			continue
		}
		lines = append(lines, l)
		if !blockStart.MatchString(l) {
			continue
		}
		for k := 0; k < 2 && i+1 < len(all) && len(lines) < n; {
			i++
			if strings.TrimSpace(all[i]) != "" {
				lines = append(lines, all[i])
				k++
			}
		}
	}
	if len(lines) == 0 {
		lines = all[len(all)-n:]
	}
	return lines, len(all) - len(lines)
}

// Tail is the last lines of a command's output s, without escape
// sequences, at most 8 KiB: what an error message quotes.
func Tail(s string, lines int) string {
	return Cap(proc.Tail([]byte(Strip(s)), lines), 8<<10)
}

// Cap keeps the last n bytes of s, marked with an ellipsis when it cuts.
func Cap(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

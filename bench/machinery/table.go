package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// table is one section's Markdown table: rows of labelled cells, one
// column per repository size.
type table struct {
	title string
	intro string
	cols  []string
	rows  []string
	cells map[[2]string]string
	notes []string
}

func newTable(title, intro string, cols ...string) *table {
	return &table{title: title, intro: intro, cols: cols, cells: map[[2]string]string{}}
}

// set fills one cell, adding its row the first time.
func (t *table) set(row, col, cell string) {
	if !contains(t.rows, row) {
		t.rows = append(t.rows, row)
	}
	t.cells[[2]string{row, col}] = cell
}

func (t *table) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

func (t *table) write(w io.Writer) {
	fmt.Fprintf(w, "### %s\n\n", t.title)
	if t.intro != "" {
		fmt.Fprintf(w, "%s\n\n", t.intro)
	}
	fmt.Fprintf(w, "| |%s|\n", strings.Join(t.cols, "|"))
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---:|", len(t.cols)))
	for _, r := range t.rows {
		cells := make([]string, len(t.cols))
		for i, c := range t.cols {
			cells[i] = t.cells[[2]string{r, c}]
			if cells[i] == "" {
				cells[i] = "–"
			}
		}
		fmt.Fprintf(w, "| %s | %s |\n", r, strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
	for _, n := range t.notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	if len(t.notes) > 0 {
		fmt.Fprintln(w)
	}
}

// printHeading writes what the tables' numbers depend on.
func (h *harness) printHeading(w io.Writer) {
	fmt.Fprintf(w, "## Machinery speed\n\n")
	fmt.Fprintf(w, "- machine: %s\n", h.machine)
	fmt.Fprintf(w, "- load average (1, 5, 15 min) at the start: %s\n", h.loadBefore)
	fmt.Fprintf(w, "- command: `go run ./bench/machinery %s`\n", strings.Join(h.args, " "))
	fmt.Fprintf(w, "- every figure is the median of %d repetitions unless its row says otherwise; ratios are of medians from this one run\n\n", h.reps)
}

// col names a repository's column.
func col(r *synthRepo) string {
	if r.files%1000 == 0 {
		return fmt.Sprintf("%dk files", r.files/1000)
	}
	return fmt.Sprintf("%d files", r.files)
}

func (h *harness) cols() []string {
	out := make([]string, len(h.repos))
	for i, r := range h.repos {
		out[i] = col(r)
	}
	return out
}

// secs formats a duration in seconds, with three significant digits.
func secs(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 10:
		return fmt.Sprintf("%.1f s", s)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 0.1:
		return fmt.Sprintf("%.3f s", s)
	default:
		return fmt.Sprintf("%.1f ms", s*1000)
	}
}

// ratio formats a/b, with a check mark against a target when one is given
// (target > 0: a/b must be at most target).
func ratio(a, b time.Duration, target float64) string {
	if b <= 0 {
		return "–"
	}
	return ratioOf(float64(a)/float64(b), target)
}

// ratioOf formats the ratio r as ratio does.
func ratioOf(r, target float64) string {
	s := fmt.Sprintf("%.2f×", r)
	if r < 0.1 {
		s = fmt.Sprintf("%.3f×", r)
	}
	if target > 0 {
		if r <= target {
			s += " ✓"
		} else {
			s += " ✗"
		}
	}
	return s
}

package profiler

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the summary as compact aligned tables: the top functions,
// the line tables of the changed functions, allocations and warnings.
// A nil Summary writes nothing.
func (s *Summary) WriteText(w io.Writer) error {
	if s == nil {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Profile: %s (%s)\n", s.title(), s.counts())
	s.writeTop(ew, "  ")
	if len(s.Changes) > 0 {
		fmt.Fprintf(ew, "  %s\n", s.changesText(func(f string) string { return f }))
	}
	if len(s.Lines) > 0 {
		fmt.Fprintf(ew, "\n%s\n\n", lineLegend)
		writeLines(ew, s.Lines, "  ")
	}
	s.writeAlloc(ew, "  ")
	for _, x := range s.Warnings {
		fmt.Fprintf(ew, "warning: %s\n", x)
	}
	return ew.err
}

// WriteMarkdown writes the summary as a collapsible <details> section. The
// top table is a Markdown table. The line tables go in a text block, as
// they need a fixed-width font and keep the source's indentation. A nil
// Summary writes nothing.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	if s == nil {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "<details>\n<summary>Profile: %s (%s)</summary>\n\n", htmlEscape(s.title()), s.counts())
	writeTopMarkdown(ew, s.Top)
	if len(s.Changes) > 0 {
		fmt.Fprintf(ew, "\n%s\n", s.changesText(func(f string) string { return "`" + strings.ReplaceAll(f, "`", "'") + "`" }))
	}
	if len(s.Lines) > 0 {
		fence := codeFence(s.Lines)
		fmt.Fprintf(ew, "\n%s\n\n%stext\n", lineLegend, fence)
		writeLines(ew, s.Lines, "")
		fmt.Fprintf(ew, "%s\n", fence)
	}
	if a := s.Alloc; a != nil {
		fmt.Fprintf(ew, "\nAllocations (%s over the run: %s → %s)\n\n", a.SampleType, bytesText(a.Bytes.Base), bytesText(a.Bytes.Cand))
		writeTopMarkdown(ew, a.Top)
	}
	if len(s.Warnings) > 0 {
		fmt.Fprintln(ew)
		for _, x := range s.Warnings {
			fmt.Fprintf(ew, "> warning: %s\n", mdEscape(x))
		}
	}
	fmt.Fprintf(ew, "\n</details>\n")
	return ew.err
}

const lineLegend = `Changed functions, line by line (cum%; "." none; - a line only base has, + only the winner)`

func (s *Summary) title() string {
	if s.Candidate == "" {
		return "why the winner is faster"
	}
	return "why " + s.Candidate + " is faster"
}

func (s *Summary) counts() string {
	t := s.SampleType
	if t == "" {
		t = "cpu"
	}
	return fmt.Sprintf("%s, %d → %d samples; %% of each side's samples, base → winner",
		t, s.Samples.Base, s.Samples.Cand)
}

// writeTop writes a top table with tabwriter.
func (s *Summary) writeTop(w io.Writer, indent string) {
	writeTopText(w, s.Top, indent)
}

func writeTopText(w io.Writer, rows []FuncRow, indent string) {
	if len(rows) == 0 {
		fmt.Fprintf(w, "%s(no functions with samples)\n", indent)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintf(tw, "%sflat%%\tcum%%\tfunction\n", indent)
	changed := false
	for _, r := range rows {
		cum := ""
		if r.Cum != nil {
			cum = shareText(*r.Cum)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\n", indent, shareText(r.Flat), cum, funcText(r))
		changed = changed || r.Changed
	}
	tw.Flush()
	if changed {
		fmt.Fprintf(w, "%s* defined in a file the winner changed\n", indent)
	}
}

func (s *Summary) writeAlloc(w io.Writer, indent string) {
	a := s.Alloc
	if a == nil {
		return
	}
	fmt.Fprintf(w, "\nAllocations (%s over the run: %s → %s)\n", a.SampleType, bytesText(a.Bytes.Base), bytesText(a.Bytes.Cand))
	writeTopText(w, a.Top, indent)
}

func writeTopMarkdown(w io.Writer, rows []FuncRow) {
	if len(rows) == 0 {
		fmt.Fprintf(w, "_No functions with samples._\n")
		return
	}
	fmt.Fprintf(w, "| flat%% | cum%% | function |\n|--:|--:|:--|\n")
	for _, r := range rows {
		cum := ""
		if r.Cum != nil {
			cum = shareText(*r.Cum)
		}
		fn := "`" + strings.ReplaceAll(r.Func, "`", "'") + "`"
		if r.File != "" {
			fn += fmt.Sprintf(" %s:%d", r.File, r.Line)
		}
		if r.Changed {
			fn += " *"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", shareText(r.Flat), cum, mdEscape(fn))
	}
}

// writeLines writes the line tables, one per function, each headed by the
// function's name and file, a blank line between them.
func writeLines(w io.Writer, rows []LineRow, indent string) {
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].Func == rows[i].Func && rows[j].File == rows[i].File {
			j++
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeLineTable(w, rows[i:j], indent)
		i = j
	}
}

// writeLineTable writes one function: base line and cum%, winner line and
// cum%, the change marker, and the source text. "…" marks lines left out.
func writeLineTable(w io.Writer, rows []LineRow, indent string) {
	title := rows[0].File
	if rows[0].Func != "" {
		title = rows[0].Func + " (" + rows[0].File + ")"
	}
	fmt.Fprintf(w, "%s%s\n", indent, title)
	fmt.Fprintf(w, "%s%13s  %13s\n", indent, "base", "winner")
	fmt.Fprintf(w, "%s%6s %6s  %6s %6s\n", indent, "line", "cum%", "line", "cum%")
	lastB, lastC := 0, 0
	for _, r := range rows {
		if (r.BaseLine > 0 && lastB > 0 && r.BaseLine > lastB+1) || (r.CandLine > 0 && lastC > 0 && r.CandLine > lastC+1) {
			fmt.Fprintf(w, "%s%6s %6s  %6s %6s\n", indent, "…", "", "…", "")
		}
		bl, bc, cl, cc := "", "", "", ""
		if r.BaseLine > 0 {
			bl, bc, lastB = fmt.Sprint(r.BaseLine), pctText(r.Cum.Base), r.BaseLine
		}
		if r.CandLine > 0 {
			cl, cc, lastC = fmt.Sprint(r.CandLine), pctText(r.Cum.Cand), r.CandLine
		}
		mark := r.Change
		if mark == "" {
			mark = " "
		}
		line := fmt.Sprintf("%s%6s %6s  %6s %6s  %s %s", indent, bl, bc, cl, cc, mark, expandTabs(r.Text, 4))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// changesText names the functions whose self time changed most, each
// named by name.
func (s *Summary) changesText(name func(string) string) string {
	var parts []string
	for _, c := range s.Changes {
		parts = append(parts, fmt.Sprintf("%s %+.1f (%.1f → %.1f)", name(c.Func), c.Delta(), c.Self.Base, c.Self.Cand))
	}
	return "Largest changes in flat%, base → winner: " + strings.Join(parts, ", ")
}

func funcText(r FuncRow) string {
	s := r.Func
	if r.File != "" {
		s += fmt.Sprintf("  %s:%d", r.File, r.Line)
	}
	if r.Changed {
		s += " *"
	}
	return s
}

func shareText(s Share) string { return fmt.Sprintf("%5.1f → %5.1f", s.Base, s.Cand) }

// pctText is a line's percentage, "." when it has no samples.
func pctText(p float64) string {
	if p == 0 {
		return "."
	}
	return fmt.Sprintf("%.1f", p)
}

func bytesText(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, i := float64(b), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// expandTabs replaces tabs with spaces up to the next multiple of width.
func expandTabs(s string, width int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// codeFence returns a fence of backticks longer than any run of them in the
// source text, so that no line can close the block.
func codeFence(rows []LineRow) string {
	fence := "```"
	for _, r := range rows {
		for strings.Contains(r.Text, fence) {
			fence += "`"
		}
	}
	return fence
}

var mdReplacer = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")

func mdEscape(s string) string { return mdReplacer.Replace(s) }

var htmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func htmlEscape(s string) string { return htmlReplacer.Replace(s) }

// errWriter keeps the first write error, so that rendering code can write
// freely and report once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

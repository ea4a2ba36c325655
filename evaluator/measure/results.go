package measure

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/benchformat"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
)

// A bench command's results are read in the format of the tool that made
// them (benchformat). They come from its stdout, or from the report files
// it writes. Those are Options.BenchReports, or a path its flags name
// (benchformat.DetectReport). A report is removed before each sample, so
// that each sample reads only what its own run wrote.

// Results says how to read a bench command's results.
type Results struct {
	Format  benchformat.Format // "": any known format
	Reports []string           // report patterns; none: the results are on stdout
	CPU     bool               // CPU time, where a format has it beside wall time
}

// Read reads one sample's results: from the reports in dir when there are
// report patterns, else from stdout, or for Go's format from the whole
// output, stderr included. It returns nil, nil when the output is in no
// known format and none was asked for: then the command's time is judged.
func (r Results) Read(dir string, stdout, output []byte) ([]gobench.Measurement, error) {
	f := r.Format
	opt := benchformat.Options{CPU: r.CPU}
	if len(r.Reports) == 0 {
		got, ms, err := benchformat.Parse(stdout, "", f, opt)
		if got == benchformat.Go || (got == "" && err == nil) {
			got, ms, err = benchformat.Parse(output, "", benchformat.Go, opt)
			if f == "" && errors.Is(err, benchformat.ErrNoBenchmarks) {
				return nil, nil
			}
		}
		if err != nil {
			return nil, err
		}
		return measurements(ms), nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	files := reportfiles.Match(root, r.Reports)
	if len(files) == 0 {
		return nil, fmt.Errorf("the bench command wrote no report (%s)", strings.Join(r.Reports, ", "))
	}
	var out []benchformat.Measurement
	for _, name := range files {
		b, err := reportfiles.ReadCapped(root, name, reportfiles.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("read the bench report %s: %w", name, err)
		}
		got, ms, err := benchformat.Parse(b, name, f, opt)
		switch {
		case err != nil:
			return nil, fmt.Errorf("the bench report %s: %w", name, err)
		case got == "":
			return nil, fmt.Errorf("the bench report %s is in no format known (want one of %s, or say --bench-format)", name, formatNames())
		}
		out = append(out, ms...)
	}
	return measurements(out), nil
}

func measurements(ms []benchformat.Measurement) []gobench.Measurement {
	out := make([]gobench.Measurement, len(ms))
	for i, m := range ms {
		out[i] = gobench.Measurement{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iterations: m.Iterations}
	}
	return out
}

func formatNames() string {
	var s []string
	for _, f := range benchformat.Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	b   []byte
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

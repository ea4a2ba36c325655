package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// A candidate whose outcome or pairs came from the result cache says so in
// every format; the others say nothing of it.
func TestWriteReport_Reused(t *testing.T) {
	rep := sampleReport()
	c := &rep.Candidates[0]
	c.ReusedFrom, c.ReusedPairs, c.ReusedPairsFrom = "20260101-000000-aaaa", 6, []string{"20260101-000000-aaaa"}
	pairs := c.Pairs
	for _, tt := range []struct{ format, want string }{
		{FormatText, "    reused: its tests' outcome from job 20260101-000000-aaaa (same tree, base, test command and environment); 6 of its " +
			strconv.Itoa(pairs) + " benchmark pairs from job 20260101-000000-aaaa (byte-identical test binaries)"},
		{FormatMarkdown, "  - reused: its tests' outcome from job 20260101-000000-aaaa"},
		{FormatJSON, `"reused_from":"20260101-000000-aaaa","reused_pairs":6,"reused_pairs_from":["20260101-000000-aaaa"]`},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, rep, tt.format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if tt.format == FormatJSON {
			out = strings.Join(strings.Fields(out), "")
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s report lacks %q:\n%s", tt.format, tt.want, out)
		}
		if n := strings.Count(out, "reused"); tt.format != FormatJSON && n != 1 {
			t.Errorf("%s report says reused %d times, want once", tt.format, n)
		}
	}
}

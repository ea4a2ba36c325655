package benchformat

import "strings"

// DetectReport returns the report paths that a bench command line writes
// its results to, as its flags say. They are relative to the directory the
// command runs in. The flags are pytest --benchmark-json F, Google
// Benchmark --benchmark_out=F, hyperfine --export-json F, vitest bench
// --outputJson F and JMH -rff F. It is nil when the line names none; its
// stdout is read then. The line is split on spaces, so a path with spaces
// or quotes is not detected.
func DetectReport(cmd string) []string {
	args := strings.Fields(cmd)
	for _, name := range []string{"--benchmark-json", "--benchmark_out", "--export-json", "--outputJson", "-rff"} {
		for i, a := range args {
			v, ok := strings.CutPrefix(a, name+"=")
			if !ok && a == name && i+1 < len(args) {
				v, ok = args[i+1], true
			}
			if v = strings.Trim(v, `"'`); ok && v != "" && v != "-" {
				return []string{v}
			}
		}
	}
	return nil
}

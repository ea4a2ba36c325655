package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// fixture is a generated Go module with many tests: pkgs packages of
// perPkg tests each. Every tenth test logs 50 lines; one test per package
// prints chatty lines (noisy bytes in all), as a library's verbose tests
// do. Package p00 has a benchmark, so that phase 2 and the profile run too.
type fixture struct {
	dir    string
	pkgs   int
	perPkg int
	noisy  int // bytes printed by each package's chatty test
}

func (f fixture) tests() int { return f.pkgs * f.perPkg }

// write makes the module and commits it.
func (f fixture) write(ctx context.Context) error {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(f.dir, "go.mod"), []byte("module example.com/big\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	for p := range f.pkgs {
		dir := filepath.Join(f.dir, fmt.Sprintf("p%02d", p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "lib.go"), []byte(libSource(p, "a + b")), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "lib_test.go"), []byte(f.testSource(p)), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=footprint", "-c", "user.email=footprint@example.invalid", "commit", "-q", "-m", "base"},
	} {
		if _, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: f.dir, Args: args}); err != nil {
			return err
		}
	}
	return nil
}

// libSource is package p's code; body is Add's result expression.
func libSource(p int, body string) string {
	return fmt.Sprintf(`package p%02d

// Add adds.
func Add(a, b int) int {
	s := 0
	for range 200 {
		s += a
	}
	return %s + s - 200*a
}
`, p, body)
}

func (f fixture) testSource(p int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package p%02d\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"testing\"\n)\n\nvar _ = fmt.Sprint\nvar _ = strings.Repeat\n\n", p)
	for i := range f.perPkg {
		fmt.Fprintf(&b, "func TestAdd%04d(t *testing.T) {\n", i)
		switch {
		case i == 0:
			lines := max(f.noisy/200, 1)
			fmt.Fprintf(&b, "\tfor n := range %d {\n\t\tfmt.Printf(\"chatty line %%d %%s\\n\", n, strings.Repeat(\"x\", 180))\n\t}\n", lines)
		case i%10 == 0:
			b.WriteString("\tfor n := range 50 {\n\t\tt.Logf(\"step %d of a verbose test\", n)\n\t}\n")
		}
		fmt.Fprintf(&b, "\tif got := Add(%d, 1); got != %d {\n\t\tt.Fatalf(\"Add(%d, 1) = %%d\", got)\n\t}\n}\n\n", i, i+1, i)
	}
	if p == 0 {
		b.WriteString("func BenchmarkAdd(b *testing.B) {\n\tfor i := range b.N {\n\t\tAdd(i, 1)\n\t}\n}\n")
	}
	return b.String()
}

// candidates writes the candidates file: one that changes p00 and passes,
// one that breaks p01 so that all its tests fail with output.
func (f fixture) candidates(path string) error {
	pass := strings.ReplaceAll(libSource(0, "b + a"), "for range 200", "for range 100")
	pass = strings.ReplaceAll(pass, "s - 200*a", "s - 100*a") // half the work, same result
	lines := []string{
		fmt.Sprintf(`{"name": "fewer-loops", "files": {"p00/lib.go": %q}}`, pass),
		fmt.Sprintf(`{"name": "broken", "files": {"p01/lib.go": %q}}`, libSource(1, "a - b")),
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// speedCandidates writes k candidates that pass, each a different change
// to a different package (p00, p01, ...), so that no two are duplicates.
func (f fixture) speedCandidates(path string, k int) error {
	var lines []string
	for i := range k {
		src := strings.ReplaceAll(libSource(i%f.pkgs, "b + a"), "for range 200", fmt.Sprintf("for range %d", 100+i))
		src = strings.ReplaceAll(src, "s - 200*a", fmt.Sprintf("s - %d*a", 100+i))
		lines = append(lines, fmt.Sprintf(`{"name": "c%02d", "files": {"p%02d/lib.go": %q}}`, i, i%f.pkgs, src))
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

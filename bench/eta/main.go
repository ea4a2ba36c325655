// Command eta checks the progress lines' ETAs against what really happened:
// it builds the CLI, runs it with the arguments given (plain progress lines
// on stderr, as a pipe gets them), stamps each line as it arrives, and for
// every line with an ETA prints the time it predicted was left and the time
// that really was: to the end of the tests (the "phase: benchmark" line, or
// the last verdict) for a "tests ETA", to the last verdict for an "ETA".
//
//	go run ./bench/eta -- demo --dir /tmp/d
//	go run ./bench/eta -- --repo R --candidates C -j 2
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"
)

var (
	etaRe   = regexp.MustCompile(`, (tests )?ETA ([^,\s]+)(?:, up to (\S+))?$`)
	countRe = regexp.MustCompile(`^\[(\d+)/(\d+)\] `)
)

// stamped is one line of stderr and when it came.
type stamped struct {
	at   time.Duration
	text string
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/eta -- OPTIMIZER-ARGS...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "eta:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	dir, err := os.MkdirTemp("", "eta-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "optimizer")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/optimizer").CombinedOutput(); err != nil {
		return fmt.Errorf("build the CLI: %v\n%s", err, out)
	}
	lines, err := capture(bin, args)
	if err != nil {
		return err
	}
	report(lines)
	return nil
}

// capture runs the CLI and stamps its stderr lines.
func capture(bin string, args []string) ([]stamped, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout = nil
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var lines []stamped
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		lines = append(lines, stamped{time.Since(start), sc.Text()})
		fmt.Fprintf(os.Stderr, "%7.1fs %s\n", time.Since(start).Seconds(), sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		return lines, fmt.Errorf("optimizer: %w", err)
	}
	return lines, nil
}

// report prints predicted against actual time left for each ETA line,
// then what the ETA before issue 12.5 (the average time per finished
// candidate, times the candidates left) would have said on the same lines.
func report(lines []stamped) {
	reportNew(lines)
	reportOld(lines)
}

var jobRe = regexp.MustCompile(`^job \S+: \d+ candidates$`)

// reportOld computes the old ETA on every verdict line, against the time
// really left to the last verdict.
func reportOld(lines []stamped) {
	var start, last time.Duration
	for _, l := range lines {
		if jobRe.MatchString(l.text) {
			start = l.at
		}
		if m := countRe.FindStringSubmatch(l.text); m != nil && m[1] == m[2] {
			last = l.at
		}
	}
	fmt.Println("\nThe old ETA (average per finished candidate) on the same lines:")
	fmt.Println("\n| at | done | old ETA | actual left | old / actual |")
	fmt.Println("|---|---|---|---|---|")
	var ratios []float64
	for _, l := range lines {
		m := countRe.FindStringSubmatch(l.text)
		if m == nil || etaRe.FindStringSubmatch(l.text) == nil {
			continue // only the lines that carry an ETA now
		}
		done, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		if done == 0 || done >= total {
			continue
		}
		old := (l.at - start) / time.Duration(done) * time.Duration(total-done)
		actual := last - l.at
		if actual <= 0 {
			continue
		}
		r := old.Seconds() / actual.Seconds()
		ratios = append(ratios, r)
		fmt.Printf("| %.1fs | %d/%d | %.1fs | %.1fs | %.2f |\n", l.at.Seconds(), done, total, old.Seconds(), actual.Seconds(), r)
	}
	summarize(ratios)
}

// reportNew prints the ETAs the lines carry against the time really left,
// and whether that stayed within the most the line said could be left.
func reportNew(lines []stamped) {
	var testsEnd, last time.Duration
	for _, l := range lines {
		if l.text == "phase: benchmark" && testsEnd == 0 {
			testsEnd = l.at
		}
		if m := countRe.FindStringSubmatch(l.text); m != nil && m[1] == m[2] {
			last = l.at
		}
	}
	if testsEnd == 0 {
		testsEnd = last
	}
	fmt.Println("| at | line | predicted left | up to | actual left | predicted / actual |")
	fmt.Println("|---|---|---|---|---|---|")
	var ratios []float64
	bounded, within := 0, 0
	for _, l := range lines {
		m := etaRe.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		pred, err := time.ParseDuration(m[2])
		if err != nil {
			continue
		}
		most := pred * 3 / 2 // a line says "up to" only when the most is over 1.5 times its ETA
		if m[3] != "" {
			if most, err = time.ParseDuration(m[3]); err != nil {
				continue
			}
		}
		end := last
		if m[1] != "" {
			end = testsEnd
		}
		actual := end - l.at
		ratio := math.NaN()
		if actual > 0 {
			ratio = pred.Seconds() / actual.Seconds()
			ratios = append(ratios, ratio)
			bounded++
			if actual <= most {
				within++
			}
		}
		fmt.Printf("| %.1fs | %s | %s | %s | %.1fs | %s |\n", l.at.Seconds(), l.text, pred, most, actual.Seconds(), strconv.FormatFloat(ratio, 'f', 2, 64))
	}
	summarize(ratios)
	if bounded > 0 {
		fmt.Printf("%d of %d within the most they said could be left\n", within, bounded)
	}
}

// summarize prints the median ratio, the worst factor either way, and how
// many are within 1.5x.
func summarize(ratios []float64) {
	if len(ratios) == 0 {
		fmt.Println("\nno ETA was printed")
		return
	}
	sort.Float64s(ratios)
	worst := 1.0
	within := 0
	for _, r := range ratios {
		f := math.Max(r, 1/r)
		worst = math.Max(worst, f)
		if f <= 1.5 {
			within++
		}
	}
	fmt.Printf("\n%d ETAs: median predicted/actual %.2f, worst factor %.2f, %d within 1.5x\n",
		len(ratios), ratios[len(ratios)/2], worst, within)
}

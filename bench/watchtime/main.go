// Command watchtime measures optimizer watch's save-to-verdict time on the
// fixture module. It makes the fixture repository and starts the given
// optimizer binary's watch on it, with a private machine lock. Then it
// saves sumsq/sumsq.go and stamps two JSON lines. The first has the test
// verdict (state "tested", when the binary prints one). The second has the
// first speed verdict (state "finished"). Two kinds of save alternate. One
// is the fast version of the function (a clear speedup). The other is a
// comment-only change (no speedup, the case that runs into the benchmark
// budget).
//
//	go build -o /tmp/new ./cmd/optimizer
//	go run ./bench/watchtime -bin /tmp/new -saves 4
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/testdata"
)

type record struct {
	State   string `json:"state"`
	Summary string `json:"summary"`
}

func main() {
	bin := flag.String("bin", "", "the optimizer binary to measure")
	saves := flag.Int("saves", 4, "saves, alternating fast and comment-only")
	wait := flag.Duration("wait", 10*time.Minute, "the longest wait for one verdict")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "watchtime: -bin is required")
		os.Exit(2)
	}
	if err := run(*bin, *saves, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "watchtime:", err)
		os.Exit(1)
	}
}

func run(bin string, saves int, wait time.Duration) error {
	dir, err := os.MkdirTemp("", "watchtime-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	if err := testdata.WriteFixture(repo); err != nil {
		return err
	}
	if _, err := testdata.InitRepo(context.Background(), repo); err != nil {
		return err
	}
	fast, err := fs.ReadFile(testdata.Demo, "fast_again/sumsq/sumsq.go")
	if err != nil {
		return err
	}
	base, err := os.ReadFile(filepath.Join(repo, "sumsq", "sumsq.go"))
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	cmd := exec.Command(bin, "watch", "--repo", repo, "--format", "json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, _ := cmd.StdoutPipe()
	errp, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errp)
		said := false
		for sc.Scan() {
			if !said {
				said = true
				close(ready)
			}
		}
	}()
	<-ready
	lines := make(chan record)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var r record
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				lines <- r
			}
		}
		close(lines)
	}()
	fmt.Println("| save | kind | to the test verdict | to the first speed verdict | verdict |")
	fmt.Println("|---|---|---|---|---|")
	for i := range saves {
		kind, content := "fast", append([]byte(nil), fast...)
		if i%2 == 1 {
			kind, content = "comment only", append(append([]byte(nil), base...), fmt.Sprintf("\n// save %d\n", i)...)
		} else {
			content = append(content, fmt.Sprintf("\n// save %d\n", i)...)
		}
		saved := time.Now()
		if err := os.WriteFile(filepath.Join(repo, "sumsq", "sumsq.go"), content, 0o644); err != nil {
			return err
		}
		tests := "-"
		deadline := time.After(wait)
	read:
		for {
			select {
			case r, ok := <-lines:
				if !ok {
					return fmt.Errorf("watch ended")
				}
				switch r.State {
				case "tested":
					tests = fmt.Sprintf("%.1fs", time.Since(saved).Seconds())
				case "finished":
					fmt.Printf("| %d | %s | %s | %.1fs | %s |\n", i+1, kind, tests, time.Since(saved).Seconds(), r.Summary)
					break read
				}
			case <-deadline:
				fmt.Printf("| %d | %s | %s | > %s | - |\n", i+1, kind, tests, wait)
				break read
			}
		}
	}
	return nil
}

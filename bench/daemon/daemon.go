package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

// daemonProc is a daemon started by the harness.
type daemonProc struct {
	cmd  *exec.Cmd
	log  string
	sock string
	c    *client.Client
	done chan error
}

// startDaemon starts `optimizer daemon` with its state in dir and waits
// until its health check answers.
func startDaemon(ctx context.Context, bin, dir string, args ...string) (*daemonProc, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sockDir, err := os.MkdirTemp("", "bd")
	if err != nil {
		return nil, err
	}
	d := &daemonProc{log: filepath.Join(dir, "daemon.log"), sock: filepath.Join(sockDir, "d.sock"), done: make(chan error, 1)}
	f, err := os.Create(d.log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d.cmd = exec.Command(bin, append([]string{"daemon", "--socket", d.sock, "--state-dir", filepath.Join(dir, "state"),
		// Its own order: other optimizer runs on this machine must not hold it back.
		"--machine-lock", filepath.Join(dir, "machine.lock"),
		// Its jobs are shell commands of the benchmark's own, run unsandboxed.
		"--allow-unsandboxed"}, args...)...)
	d.cmd.Stdout, d.cmd.Stderr = f, f
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.done <- d.cmd.Wait() }()
	d.c = client.New(d.sock)
	deadline := time.Now().Add(time.Minute)
	for !d.c.Available(ctx) {
		select {
		case err := <-d.done:
			return nil, fmt.Errorf("the daemon exited: %v (log %s)", err, d.log)
		default:
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("the daemon did not answer in a minute (log %s)", d.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return d, nil
}

// peakRSS is the daemon's VmHWM in bytes.
func (d *daemonProc) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func (d *daemonProc) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(2 * time.Minute):
		d.cmd.Process.Kill()
		<-d.done
	}
	os.RemoveAll(filepath.Dir(d.sock))
}

// waitEnded follows a job's events to its end.
func waitEnded(ctx context.Context, c *client.Client, id string) error {
	return c.Events(ctx, id, 0, func(api.Event) error { return nil })
}

func gitIn(ctx context.Context, dir string, args ...string) error {
	_, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: dir, Args: append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid"}, args...)})
	return err
}

// makeRepo writes n small files and a test script, and commits them.
func makeRepo(ctx context.Context, dir string, n int, extra map[string]string) error {
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d/s%d/f%05d.txt", i/200, (i/20)%10, i))
		if i%20 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\nsome content of a realistic length, more or less\n", i)), 0o644); err != nil {
			return err
		}
	}
	for p, s := range extra {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o755); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}, {"repack", "-adq"}} {
		if err := gitIn(ctx, dir, args...); err != nil {
			return err
		}
	}
	return nil
}

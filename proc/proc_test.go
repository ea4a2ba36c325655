package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestRun_ExitCode(t *testing.T) {
	for _, tt := range []struct {
		name string
		line string
		want int
	}{
		{"Zero", "true", 0},
		{"One", "false", 1},
		{"Three", "exit 3", 3},
		{"Signal", "kill -9 $$", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), Cmd{Args: Shell(tt.line), CPU: -1})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.want || res.TimedOut || res.Canceled {
				t.Errorf("got exit %d timedOut %v canceled %v, want exit %d", res.ExitCode, res.TimedOut, res.Canceled, tt.want)
			}
		})
	}
}

func TestRun_StartErrors(t *testing.T) {
	t.Run("ErrNoArgs", func(t *testing.T) {
		if _, err := Run(t.Context(), Cmd{CPU: -1}); !errors.Is(err, ErrNoArgs) {
			t.Errorf("got %v, want ErrNoArgs", err)
		}
	})
	// Paths under a fresh temporary directory, not fixed ones such as
	// /nonexistent: the tests run as root on CI, where anything may make
	// such a directory.
	t.Run("NotFound", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "optimizer-proc-test")
		_, err := Run(t.Context(), Cmd{Args: []string{missing}, CPU: -1})
		if err == nil || !strings.Contains(err.Error(), "start "+missing) {
			t.Errorf("got %v, want a start error naming the command", err)
		}
	})
	t.Run("BadDir", func(t *testing.T) {
		if _, err := Run(t.Context(), Cmd{Args: Shell("true"), Dir: filepath.Join(t.TempDir(), "missing"), CPU: -1}); err == nil {
			t.Error("got nil error for a missing directory")
		}
	})
}

func TestRun_PreCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	started := false
	res, err := Run(ctx, Cmd{Args: Shell("true"), CPU: -1, OnStart: func(int) { started = true }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || started {
		t.Errorf("got canceled %v started %v, want a cancelled run that never started", res.Canceled, started)
	}
}

func TestRun_Output(t *testing.T) {
	t.Run("Combined", func(t *testing.T) {
		res, err := Run(t.Context(), Cmd{Args: Shell("echo out; echo err >&2; echo out2"), CPU: -1})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(res.Output), "out\nerr\nout2\n"; got != want || res.Truncated {
			t.Errorf("got %q (truncated %v), want %q", got, res.Truncated, want)
		}
	})
	t.Run("TeeSeesStdoutOnly", func(t *testing.T) {
		var tee bytes.Buffer
		res, err := Run(t.Context(), Cmd{Args: Shell("echo out; echo err >&2"), Stdout: &tee, CPU: -1})
		if err != nil {
			t.Fatal(err)
		}
		if tee.String() != "out\n" {
			t.Errorf("tee got %q, want %q", tee.String(), "out\n")
		}
		for _, s := range []string{"out\n", "err\n"} {
			if !strings.Contains(string(res.Output), s) {
				t.Errorf("output %q lacks %q", res.Output, s)
			}
		}
	})
	t.Run("FailingTee", func(t *testing.T) {
		res, err := Run(t.Context(), Cmd{Args: Shell("echo a; echo b"), Stdout: failWriter{}, CPU: -1})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Output) != "a\nb\n" || res.ExitCode != 0 {
			t.Errorf("got %q exit %d, want the whole output and exit 0", res.Output, res.ExitCode)
		}
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("full") }

// countWriter counts bytes and keeps none.
type countWriter struct {
	mu sync.Mutex
	n  int64
}

func (w *countWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.n += int64(len(b))
	w.mu.Unlock()
	return len(b), nil
}

func TestRun_OutputCapped(t *testing.T) {
	const total = 100_000_000
	tee := &countWriter{}
	res, err := Run(t.Context(), Cmd{Args: Shell(fmt.Sprintf("head -c %d /dev/zero", total)), Stdout: tee, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Output)
	}
	if tee.n != total {
		t.Errorf("tee saw %d bytes, want %d", tee.n, total)
	}
	if !res.Truncated || len(res.Output) > DefaultMaxOutput+64 {
		t.Errorf("got %d bytes (truncated %v), want at most %d", len(res.Output), res.Truncated, DefaultMaxOutput+64)
	}
	marker := fmt.Sprintf("[… %d bytes cut …]", total-DefaultMaxOutput)
	if !bytes.Contains(res.Output, []byte(marker)) {
		t.Errorf("output lacks the marker %q", marker)
	}
}

func TestCapture(t *testing.T) {
	for _, tt := range []struct {
		name   string
		max    int
		writes []string
		want   string
		trunc  bool
	}{
		{"Empty", 8, nil, "", false},
		{"Fits", 8, []string{"abc", "defgh"}, "abcdefgh", false},
		{"OneBigWrite", 8, []string{"0123456789"}, "0123\n[… 2 bytes cut …]\n6789", true},
		{"SmallWritesWrap", 8, []string{"01", "23", "45", "67", "89", "ab", "c"}, "0123\n[… 5 bytes cut …]\n9abc", true},
		{"ByteByByte", 4, strings.Split("abcdefg", ""), "ab\n[… 3 bytes cut …]\nfg", true},
		{"BigAfterSmall", 6, []string{"ab", "cde", "fghijklmn"}, "abc\n[… 8 bytes cut …]\nlmn", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.max)
			for _, w := range tt.writes {
				c.Write([]byte(w))
			}
			got, trunc := c.bytes()
			if string(got) != tt.want || trunc != tt.trunc {
				t.Errorf("got %q (truncated %v), want %q (truncated %v)", got, trunc, tt.want, tt.trunc)
			}
		})
	}
}

func TestRun_CPU(t *testing.T) {
	res, err := Run(t.Context(), Cmd{Args: Shell("i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"), CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.CPU <= 0 || res.Wall <= 0 {
		t.Errorf("got exit %d cpu %v wall %v, want exit 0 and positive times", res.ExitCode, res.CPU, res.Wall)
	}
}

func TestRun_Env(t *testing.T) {
	res, err := Run(t.Context(), Cmd{Args: Shell(`echo "$PROC_TEST_VAR $PATH"`), Env: []string{"PROC_TEST_VAR=42"}, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	if !strings.HasPrefix(out, "42 ") || strings.TrimSpace(out) == "42" {
		t.Errorf("got %q, want the added variable and the inherited PATH", out)
	}
}

func TestRun_Dir(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(t.Context(), Cmd{Args: Shell("pwd -P"), Dir: dir, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(res.Output)), strings.TrimPrefix(dir, "/private")) {
		t.Errorf("ran in %q, want %q", res.Output, dir)
	}
}

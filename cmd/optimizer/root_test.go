package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"Nil", nil, exitOK},
		{"Plain", errors.New("boom"), exitError},
		{"Usage", usageErrorf("bad flag"), exitUsage},
		{"WrappedUsage", fmt.Errorf("x: %w", usageErrorf("bad")), exitUsage},
		{"Regression", fmt.Errorf("%w: slow (slower)", errRegression), exitRegression},
		{"Interrupted", fmt.Errorf("%w: job x", errInterrupted), exitError},
		{"SIGINT", fmt.Errorf("%w: job x (%w)", errInterrupted, &signalError{syscall.SIGINT}), 130},
		{"SIGTERM", fmt.Errorf("x (%w)", &signalError{syscall.SIGTERM}), 143},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestRun_Usage calls run as main does: every mistake in how optimizer is
// called exits 2 and says so on stderr.
func TestRun_Usage(t *testing.T) {
	dir := t.TempDir() // not a repo: nothing may get that far
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"UnknownFlag", []string{"--bogus"}},
		{"UnknownCommand", []string{"frobnicate"}},
		{"BadParallel", []string{"-j", "lots"}},
		{"BadDuration", []string{"--timeout", "soon", "--repo", dir}},
		{"ShowTwoJobs", []string{"show", "a", "b"}},
		{"ApplyThreeArgs", []string{"apply", "a", "b", "c"}},
		{"HistoryArg", []string{"history", "x"}},
		{"ReportFormat", []string{"report", "--format", "xml", "--repo", dir}},
		{"DemoFormat", []string{"demo", "--format", "xml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if got := exitCode(err); got != exitUsage {
				t.Fatalf("exit %d (%v), want %d", got, err, exitUsage)
			}
			if !strings.Contains(stderr.String(), "optimizer --help") {
				t.Errorf("stderr does not point to --help:\n%s", stderr.String())
			}
		})
	}
}

func TestRun_Help(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--parallel-candidates", "--candidates", "history", "apply", "demo", "Exit status"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

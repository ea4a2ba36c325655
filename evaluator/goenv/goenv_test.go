package goenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRead reads the real go's variables.
func TestRead(t *testing.T) {
	vars, err := Read(context.Background(), "", "GOROOT", "GOOS")
	if err != nil {
		t.Fatal(err)
	}
	if vars["GOROOT"] == "" || vars["GOOS"] == "" {
		t.Errorf("go env -json GOROOT GOOS gave %v, want both set", vars)
	}
}

// fakeGo puts a go on PATH that prints out and exits with code.
func fakeGo(t *testing.T, out string, code int) {
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s' '" + out + "'\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

// TestRead_NotJSON: output go env should not print is an error that names
// go env -json and quotes the output.
func TestRead_NotJSON(t *testing.T) {
	fakeGo(t, `{"GOROOT": 42`, 0)
	vars, err := Read(context.Background(), "")
	if err == nil {
		t.Fatalf("Read of broken output gave %v and no error", vars)
	}
	if errors.Is(err, ErrRun) || !strings.Contains(err.Error(), "parse the output of go env -json") ||
		!strings.Contains(err.Error(), `{\"GOROOT\": 42`) {
		t.Errorf("error %q: want a parse error that quotes the output", err)
	}
}

// TestRead_Fails: a go env that exits non-zero wraps ErrRun.
func TestRead_Fails(t *testing.T) {
	fakeGo(t, `{}`, 2)
	if _, err := Read(context.Background(), ""); !errors.Is(err, ErrRun) {
		t.Errorf("error %v: want ErrRun", err)
	}
}

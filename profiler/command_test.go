package profiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestCommand(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	newSlot := func(t *testing.T) (slot, art string) {
		slot, art = t.TempDir(), filepath.Join(t.TempDir(), "artifacts")
		writeFiles(t, slot, map[string]string{
			"main.py": "print(1)\n", "old.json": "{}\n", ".git/HEAD": "ref\n", "node_modules/x/package.json": "{}\n",
		})
		return slot, art
	}
	// rels lists kept files relative to art.
	rels := func(t *testing.T, art string, files []string) []string {
		var out []string
		for _, f := range files {
			rel, err := filepath.Rel(art, f)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("kept file %s is outside the artifacts directory", f)
			}
			out = append(out, filepath.ToSlash(rel))
		}
		sort.Strings(out)
		return out
	}

	t.Run("Keeps", func(t *testing.T) {
		slot, art := newSlot(t)
		line := `echo profiling; printf x > "$OPTIMIZER_ARTIFACTS/flame.svg"; ` +
			`mkdir -p out && printf p > out/cpu.pprof && printf d > perf.data && ` +
			`printf b > prog.bin && printf j > node_modules/x/new.json && printf o > old.json`
		files, err := Command(context.Background(), line, slot, art, nil)
		if err != nil {
			t.Fatalf("Command: %v", err)
		}
		equalLists(t, "kept", rels(t, art, files), []string{"flame.svg", "out/cpu.pprof", "perf.data", CommandOutput})
		if out, _ := os.ReadFile(filepath.Join(art, CommandOutput)); string(out) != "profiling\n" {
			t.Errorf("output = %q", out)
		}
		if _, err := os.Stat(filepath.Join(slot, "out", "cpu.pprof")); err == nil {
			t.Error("cpu.pprof is still in the slot: it should have moved")
		}
		if _, err := os.Stat(filepath.Join(slot, "prog.bin")); err != nil {
			t.Errorf("prog.bin should stay in the slot: %v", err)
		}
	})

	t.Run("Again", func(t *testing.T) {
		// A second run into the same artifacts directory keeps both files.
		slot, art := newSlot(t)
		for range 2 {
			files, err := Command(context.Background(), "printf p > cpu.pprof", slot, art, nil)
			if err != nil {
				t.Fatalf("Command: %v", err)
			}
			if len(files) != 2 {
				t.Errorf("kept %q, want cpu.pprof and the output", files)
			}
		}
		if _, err := os.Stat(filepath.Join(art, "cpu.1.pprof")); err != nil {
			t.Errorf("second cpu.pprof: %v", err)
		}
	})

	t.Run("Fails", func(t *testing.T) {
		slot, art := newSlot(t)
		files, err := Command(context.Background(), "printf p > cpu.pprof; echo broken >&2; exit 3", slot, art, nil)
		if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "broken") {
			t.Errorf("Command: %v, want exit status 3 and the output", err)
		}
		equalLists(t, "kept", rels(t, art, files), []string{"cpu.pprof", CommandOutput})
	})

	t.Run("Canceled", func(t *testing.T) {
		slot, art := newSlot(t)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		// The background sleep holds the output open: the whole group dies.
		_, err := Command(ctx, "sleep 60 & sleep 60", slot, art, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Command: %v, want the context's error", err)
		}
	})

	t.Run("ErrNoCommand", func(t *testing.T) {
		slot, art := newSlot(t)
		if _, err := Command(context.Background(), "  ", slot, art, nil); !errors.Is(err, ErrNoCommand) {
			t.Errorf("Command: %v, want ErrNoCommand", err)
		}
	})
}

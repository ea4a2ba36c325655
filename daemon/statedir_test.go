package daemon

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDefaultStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got, err := DefaultStateDir(); err != nil || got != "/state/optimizer" {
		t.Errorf("with XDG_STATE_HOME: %q, %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	if got, err := DefaultStateDir(); err != nil || got != filepath.Join(home, ".local", "state", "optimizer") {
		t.Errorf("without: %q, %v", got, err)
	}
}

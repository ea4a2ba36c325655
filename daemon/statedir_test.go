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

// TestNew_StateDir: the daemon keeps its store and, for --listen, its token
// in its state directory; the token is made once (mode 0600) and read back
// at the next start, and TokenFile puts it elsewhere.
func TestNew_StateDir(t *testing.T) {
	newServer := func(o Options) *Server {
		t.Helper()
		o.Socket = filepath.Join(t.TempDir(), "d.sock")
		srv, err := New(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.db.Close() })
		return srv
	}
	dir := t.TempDir()
	first := newServer(Options{StateDir: dir, Listen: "127.0.0.1:0"})
	if got, want := first.opts.StateDB, filepath.Join(dir, "daemon.db"); got != want {
		t.Errorf("StateDB = %s, want %s", got, want)
	}
	if _, err := os.Stat(first.opts.StateDB); err != nil {
		t.Errorf("the store is not in the state directory: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatalf("no token file in the state directory: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if first.opts.Token == "" {
		t.Error("no token for --listen")
	}
	if again := newServer(Options{StateDir: dir, Listen: "127.0.0.1:0"}); again.opts.Token != first.opts.Token {
		t.Error("a second start made a new token instead of reading the file")
	}

	tf := filepath.Join(t.TempDir(), "elsewhere")
	other := newServer(Options{StateDir: dir, Listen: "127.0.0.1:0", TokenFile: tf})
	if b, err := os.ReadFile(tf); err != nil || string(b) != other.opts.Token+"\n" {
		t.Errorf("TokenFile: %q, %v; want the token %q", b, err, other.opts.Token)
	}
	if noTCP := newServer(Options{StateDir: t.TempDir()}); noTCP.opts.Token != "" || noTCP.opts.TokenFile != "" {
		t.Errorf("without Listen: token %q from %q, want none", noTCP.opts.Token, noTCP.opts.TokenFile)
	}
}

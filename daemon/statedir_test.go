package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
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
// in its state directory. The token is made once (mode 0600) and read back
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

// TestServer_PrivateState: the daemon's state directory and queue, and a
// repository's optimizer directory and store, are private to the user. They
// are made 0700 and 0600, and tightened when they exist more open. The
// attack of issue 33 read a 0755 directory and a 0644 daemon.db, with every
// candidate's code, as any user of the machine.
func TestServer_PrivateState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	repo := shellRepo(t)
	optDir := filepath.Join(repo, ".git", "optimizer")
	for _, d := range []string{state, optDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755)
	}
	if err := os.WriteFile(filepath.Join(state, "daemon.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(state, "daemon.db"), 0o644)
	_, c := startServer(t, func(o *Options) { o.StateDir, o.StateDB = state, "" })
	sub, err := c.Submit(t.Context(), api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "a", map[string]string{"lib.txt": "2\n"})},
		Options:    jobspec.Spec{Test: shellTest, Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	if j := waitJob(t, c, sub.ID); j.State != "finished" {
		t.Fatalf("the job ended %s: %s", j.State, j.Error)
	}
	for path, want := range map[string]os.FileMode{
		state:                                     0o700,
		filepath.Join(state, "daemon.db"):         0o600,
		filepath.Join(state, "daemon.db-wal"):     0o600,
		filepath.Join(state, "daemon.db-shm"):     0o600,
		optDir:                                    0o700,
		filepath.Join(optDir, "optimizer.db"):     0o600,
		filepath.Join(optDir, "optimizer.db-wal"): 0o600,
		filepath.Join(optDir, "optimizer.db-shm"): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

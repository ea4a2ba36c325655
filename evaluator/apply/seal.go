package apply

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/optimizer-dev/optimizer/internal/perm"
)

// A kept change carries a seal: an HMAC of the change, made when the job
// starts, from the change the job loaded before any candidate ran. Apply
// installs a change only when its seal checks out. The key lives in the
// user's state directory: outside the repository, every slot and the store,
// and hidden by the sandbox. A candidate that rewrites both the kept change
// and the store cannot seal its own code without the key.
//
// Without the sandbox, a candidate runs as the user and can read the key.
// The seal then stops a rewrite that does not know of it, not one that does
// (docs/reliability.md).

// KeySize is the length of the sealing key in bytes.
const KeySize = 32

// KeyFile is the file of the key that seals kept changes: apply.key in
// $XDG_STATE_HOME/optimizer, else in ~/.local/state/optimizer.
func KeyFile() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "optimizer", "apply.key"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the key that seals kept changes: %w", err)
	}
	return filepath.Join(home, ".local", "state", "optimizer", "apply.key"), nil
}

// Change is the stored form of a candidate's change, kept by the job and
// read back by apply.
type Change struct {
	Name    string            `json:"name"`
	Patch   string            `json:"patch,omitempty"`
	Files   map[string]string `json:"files,omitempty"`
	Deleted []string          `json:"deleted,omitempty"`
	Seal    string            `json:"seal,omitempty"` // in kept files only
}

// Key reads the sealing key. With create, a missing key is made: 32
// random bytes, mode 0600, in a 0700 directory. A key that others may read
// or that another user owns is refused.
func Key(create bool) ([]byte, error) {
	path, err := KeyFile()
	if err != nil {
		return nil, err
	}
	key, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		err = makeKey(path)
		if err == nil || errors.Is(err, fs.ErrExist) {
			key, err = readKey(path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the key that seals kept changes: %w", err)
	}
	return key, nil
}

func readKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s may be read by others (mode %v): remove it, and re-run the jobs to apply", path, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("%s belongs to uid %d, not to this user", path, st.Uid)
	}
	key := make([]byte, KeySize+1)
	n, _ := f.Read(key)
	if n != KeySize {
		return nil, fmt.Errorf("%s holds %d bytes, not a key of %d: remove it, and re-run the jobs to apply", path, n, KeySize)
	}
	return key[:KeySize], nil
}

// makeKey writes a new key at path, unless a file is there already.
func makeKey(path string) error {
	if err := perm.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	key := make([]byte, KeySize)
	rand.Read(key)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".apply.key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(key); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// A hard link, unlike a rename, never replaces a key that another
	// process made meanwhile: the seals it made stay valid.
	return os.Link(tmp.Name(), path)
}

// Seal is the seal of a kept change of job: an HMAC-SHA256, under key,
// of the job's id and the change's stored form (without its seal).
func Seal(key []byte, job string, change []byte) string {
	return hex.EncodeToString(sealBytes(key, job, change))
}

func sealBytes(key []byte, job string, change []byte) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "optimizer kept change 1\x00%s\x00", job)
	m.Write(change)
	return m.Sum(nil)
}

// checkSeal returns an error unless ch carries the seal of job under key.
func checkSeal(key []byte, job string, ch Change) error {
	if ch.Seal == "" {
		return errors.New("it carries no seal, so it is not applied (re-run the job to apply its candidates)")
	}
	got, err := hex.DecodeString(ch.Seal)
	ch.Seal = ""
	b, merr := json.Marshal(ch)
	if err != nil || merr != nil || !hmac.Equal(got, sealBytes(key, job, b)) {
		return errors.New("its seal does not match: it was altered after the job, so it is not applied")
	}
	return nil
}

package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func dead(int, string) bool { return false }

// TestOpenLive: a dead process's running job is interrupted on opening.
func TestOpenLive(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "optimizer.db")
	db := openTestDB(t, path)
	job := newJob("j1")
	job.State = "running"
	if err := db.CreateJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func() (*DB, error){
		"OpenLive":   func() (*DB, error) { return OpenLive(ctx, path, dead) },
		"OpenToRead": func() (*DB, error) { return OpenToRead(ctx, path, dead) },
		"OpenForJob": func() (*DB, error) { return OpenForJob(ctx, path, dead, nil) },
	} {
		got, err := open()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		j, err := got.Job(ctx, "j1")
		got.Close()
		if err != nil || j.State != "interrupted" {
			t.Errorf("%s: job j1 is %q (%v), want interrupted", name, j.State, err)
		}
	}
	if _, err := OpenLive(ctx, t.TempDir(), dead); !errors.Is(err, ErrIsDirectory) || !strings.HasPrefix(err.Error(), "open store: ") {
		t.Errorf("OpenLive(a directory) = %v, want ErrIsDirectory", err)
	}
}

// TestOpenToRead_Missing: a reader makes no store; a missing one is
// ErrNoJobs, naming where it was looked for.
func TestOpenToRead_Missing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "optimizer.db")
	db, err := OpenToRead(context.Background(), path, dead)
	if !errors.Is(err, ErrNoJobs) || !strings.Contains(err.Error(), "no store at "+path) || db != nil {
		t.Errorf("OpenToRead(missing) = %v, %v; want ErrNoJobs naming %s", db, err, path)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenToRead made a store: %v", err)
	}
}

// TestOpenForJob_Corrupt: a corrupt store is moved aside, the caller is
// told, and a new store is made; readers and MarkDead do not make one.
func TestOpenForJob_Corrupt(t *testing.T) {
	ctx := context.Background()
	spoil := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "optimizer.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 500)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var told []string
	moved := func(path, aside string, cause error) {
		if !IsCorrupt(cause) || strings.HasPrefix(cause.Error(), "open store") {
			t.Errorf("moved aside for %v, want the store's own corrupt error", cause)
		}
		told = append(told, aside)
	}

	path := spoil(t)
	if _, err := OpenToRead(ctx, path, dead); !IsCorrupt(err) {
		t.Errorf("OpenToRead(corrupt) = %v, want corrupt", err)
	}
	db, err := OpenForJob(ctx, path, dead, moved)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if len(told) != 1 || !strings.HasPrefix(told[0], path+".corrupt-") {
		t.Fatalf("told %q, want one move aside of %s", told, path)
	}
	if _, err := os.Stat(told[0]); err != nil {
		t.Error(err)
	}

	told = nil
	path = spoil(t)
	if n, err := MarkDead(ctx, path, dead, moved); n != 0 || err != nil || len(told) != 1 {
		t.Errorf("MarkDead(corrupt) = %d, %v, told %q; want 0, nil, one move", n, err, told)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MarkDead made a new store: %v", err)
	}
	if _, err := MarkDead(ctx, path, dead, moved); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MarkDead(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestDB_FindJob(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	if _, err := db.FindJob(ctx, ""); !errors.Is(err, ErrNoJobs) {
		t.Errorf("FindJob in an empty store = %v, want ErrNoJobs", err)
	}
	for _, id := range []string{"abc1", "abc2"} {
		if err := db.CreateJob(ctx, newJob(id)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		id, want, err string
	}{
		{"abc1", "abc1", ""},
		{"abc2", "abc2", ""},
		{"abc", "", `job prefix "abc" matches more than one job: give more of it`},
		{"x", "", `no job "x" in ` + db.Path() + ` (see optimizer history)`},
	} {
		j, err := db.FindJob(ctx, tt.id)
		if got := fmtErr(err); got != tt.err || j.ID != tt.want {
			t.Errorf("FindJob(%q) = %s, %q; want %s, %q", tt.id, j.ID, got, tt.want, tt.err)
		}
	}
	if j, err := db.FindJob(ctx, ""); err != nil || (j.ID != "abc1" && j.ID != "abc2") {
		t.Errorf("FindJob(\"\") = %s, %v; want the latest job", j.ID, err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestOpen_Private: a new store is made private whatever the umask: its
// directory 0700, and the file, -wal and -shm 0600. An existing store that
// others may read (0644, as an older optimizer left it) is tightened when
// opened.
func TestOpen_Private(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "optimizer")
	path := filepath.Join(dir, "optimizer.db")
	modes := func() map[string]fs.FileMode {
		m := map[string]fs.FileMode{}
		for _, p := range []string{dir, path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			m[filepath.Base(p)] = fi.Mode().Perm()
		}
		return m
	}
	want := map[string]fs.FileMode{"optimizer": 0o700, "optimizer.db": 0o600, "optimizer.db-wal": 0o600, "optimizer.db-shm": 0o600}
	db := openTestDB(t, path)
	if err := db.CreateJob(ctx, newJob("j1")); err != nil {
		t.Fatal(err)
	}
	for name, m := range modes() {
		if m != want[name] {
			t.Errorf("new store: %s has mode %v, want %v", name, m, want[name])
		}
	}
	db.Close()

	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	again := openTestDB(t, path)
	if _, err := again.Job(ctx, "j1"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("a 0644 store file %s is %v after Open, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

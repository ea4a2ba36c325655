package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"
)

func TestOpen(t *testing.T) {
	// A missing parent directory, and characters that mean something in
	// a URI.
	path := filepath.Join(t.TempDir(), "a b", "c?d#e%f", "optimizer.db")
	db := openTestDB(t, path)
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no database file at the path: %v", err)
	}
	t.Run("Pragmas", func(t *testing.T) {
		for _, tt := range []struct {
			pool         string
			c            *sql.DB
			wantReadOnly int
		}{
			{"write", db.w, 0},
			{"read", db.r, 1},
		} {
			var mode string
			var fk, timeout, readOnly int
			for q, dst := range map[string]any{
				"PRAGMA journal_mode": &mode, "PRAGMA foreign_keys": &fk,
				"PRAGMA busy_timeout": &timeout, "PRAGMA query_only": &readOnly,
			} {
				if err := tt.c.QueryRow(q).Scan(dst); err != nil {
					t.Fatalf("%s %s: %v", tt.pool, q, err)
				}
			}
			if mode != "wal" || fk != 1 || timeout != 10000 || readOnly != tt.wantReadOnly {
				t.Errorf("%s connection: journal_mode %s, foreign_keys %d, busy_timeout %d, query_only %d",
					tt.pool, mode, fk, timeout, readOnly)
			}
		}
	})
	t.Run("EmptyPath", func(t *testing.T) {
		if _, err := Open(context.Background(), ""); err == nil {
			t.Error("Open(\"\") succeeded")
		}
	})
}

func TestDB_Migrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "optimizer.db")
	ctx := context.Background()
	all, err := loadMigrations(migrations)
	if err != nil {
		t.Fatal(err)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	want := addJob(t, db, "job1")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openTestDB(t, path) // re-open: would fail if 0001 ran again
	got, err := db.Job(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "job after re-open", got, want)
	if v, err := userVersion(ctx, db.w); err != nil || v != len(all) {
		t.Errorf("user_version = %d, %v; want %d", v, err, len(all))
	}
	if n, err := db.migrate(ctx, migrations); n != 0 || err != nil {
		t.Errorf("migrate of an up-to-date database applied %d, %v; want 0, nil", n, err)
	}

	t.Run("NewMigration", func(t *testing.T) {
		fsys := fstest.MapFS{fmt.Sprintf("migrations/%04d_extra.sql", len(all)+1): {Data: []byte(`
			CREATE TABLE extra (id INTEGER PRIMARY KEY);
			INSERT INTO extra (id) SELECT 7;`)}}
		for _, m := range all {
			fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
		}
		for i, want := range []int{1, 0} {
			if n, err := db.migrate(ctx, fsys); n != want || err != nil {
				t.Errorf("migrate %d applied %d, %v; want %d, nil", i+1, n, err, want)
			}
		}
		if n := count(t, db, "extra"); n != 1 {
			t.Errorf("extra has %d rows, want 1", n)
		}
	})
	t.Run("FailedMigrationRollsBack", func(t *testing.T) {
		// Versions up to the extra one above are applied; the one after is
		// new and broken.
		fsys := fstest.MapFS{}
		for i := 1; i <= len(all)+2; i++ {
			fsys[fmt.Sprintf("migrations/%04d_m.sql", i)] = &fstest.MapFile{Data: []byte("SELECT 1;")}
		}
		fsys[fmt.Sprintf("migrations/%04d_m.sql", len(all)+2)] = &fstest.MapFile{Data: []byte("CREATE TABLE half (x); SELECT nonsense;")}
		v0, _ := userVersion(ctx, db.w)
		if _, err := db.migrate(ctx, fsys); err == nil {
			t.Fatal("a broken migration was applied")
		}
		if v, _ := userVersion(ctx, db.w); v != v0 {
			t.Errorf("user_version after a failed migration = %d, want %d", v, v0)
		}
		var n int
		db.w.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'half'").Scan(&n)
		if n != 0 {
			t.Error("a failed migration left its table behind")
		}
	})
}

func TestOpen_ErrSchemaTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "optimizer.db")
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(ctx, path)
	if !errors.Is(err, ErrSchemaTooNew) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("Open of a newer database = %v, want ErrSchemaTooNew", err)
	}
	t.Log(err)
}

func TestLoadMigrations(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("SELECT 1;")}
	for _, tt := range []struct {
		name    string
		files   []string
		want    int
		wantErr bool
	}{
		{"Embedded", nil, -1, false},
		{"None", []string{}, 0, false},
		{"InOrder", []string{"0001_a.sql", "0002_b.sql", "0003_c.sql"}, 3, false},
		{"Gap", []string{"0001_a.sql", "0003_c.sql"}, 0, true},
		{"Duplicate", []string{"0001_a.sql", "0001_b.sql"}, 0, true},
		{"StartsAtTwo", []string{"0002_a.sql"}, 0, true},
		{"NotANumber", []string{"init.sql"}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var fsys fstest.MapFS
			if tt.files != nil {
				fsys = fstest.MapFS{"migrations/README": file}
				for _, f := range tt.files {
					fsys["migrations/"+f] = file
				}
			}
			var ms []migration
			var err error
			if fsys == nil {
				ms, err = loadMigrations(migrations)
			} else {
				ms, err = loadMigrations(fsys)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("loadMigrations = %v, want error %v", err, tt.wantErr)
			}
			if tt.want >= 0 && len(ms) != tt.want {
				t.Errorf("%d migrations, want %d", len(ms), tt.want)
			}
			if fsys == nil && len(ms) == 0 {
				t.Error("no embedded migrations")
			}
		})
	}
}

func TestDB_Cascade(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addChildren := func(id string) {
		t.Helper()
		addJob(t, db, id)
		for _, err := range []error{
			db.AddCandidates(ctx, []Candidate{newCandidate(id, 0, "a")}),
			db.AddTestResults(ctx, []TestResult{{JobID: id, Test: "TestA", Status: "pass"}}),
			db.AddBenchSamples(ctx, []BenchSample{{JobID: id, Candidate: "a", Side: "base"}}),
			db.AddBenchResults(ctx, []BenchResult{{JobID: id, Candidate: "a"}}),
			db.AddEvent(ctx, Event{JobID: id, Kind: "start"}),
			db.AddProfile(ctx, Profile{JobID: id, Candidate: "a", Kind: "cpu"}),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	addChildren("gone")
	addChildren("kept")
	if err := db.PutBaseline(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.exec(ctx, "DELETE FROM jobs WHERE id = ?", "gone"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"jobs", "candidates", "test_results", "bench_samples", "bench_results", "events", "profiles", "baselines"} {
		if n := count(t, db, table); n != 1 {
			t.Errorf("%s has %d rows after deleting one of two jobs, want 1", table, n)
		}
	}
}

func TestDB_ForeignKeys(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	for name, err := range map[string]error{
		"test result":  db.AddTestResults(ctx, []TestResult{{JobID: "nope"}}),
		"bench sample": db.AddBenchSamples(ctx, []BenchSample{{JobID: "nope", Side: "base"}}),
		"bench result": db.AddBenchResults(ctx, []BenchResult{{JobID: "nope"}}),
		"event":        db.AddEvent(ctx, Event{JobID: "nope"}),
		"profile":      db.AddProfile(ctx, Profile{JobID: "nope"}),
	} {
		if err == nil {
			t.Errorf("%s of a missing job was accepted", name)
		}
	}
}

// TestOpen_ConcurrentNewFile opens a new file from several connections at
// once, as two optimizers started together on one store do: every open
// succeeds. Without the retry in Open about one round in twenty failed with
// SQLITE_BUSY while another connection turned the file to WAL.
func TestOpen_ConcurrentNewFile(t *testing.T) {
	for round := range 100 {
		path := filepath.Join(t.TempDir(), "store.db")
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := Open(context.Background(), path)
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				if err := db.Close(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}

// TestMigrate_JobSettings: migration 0010 fills the threshold and the
// artifacts directory of older jobs from their recorded configuration
// (min_speedup in percent). It fills 5% and none where that says nothing or
// is not JSON.
func TestMigrate_JobSettings(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "optimizer.db")
	all, err := loadMigrations(migrations)
	if err != nil {
		t.Fatal(err)
	}
	old := fstest.MapFS{}
	for _, m := range all {
		if m.version < 10 {
			old["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
		}
	}
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	pre := &DB{w: w}
	if _, err := pre.migrate(ctx, old); err != nil {
		t.Fatal(err)
	}
	configs := map[string]any{
		"set":     `{"min_speedup": 12.5, "artifacts": "/a", "test": "make"}`,
		"silent":  `{"test": "make"}`,
		"none":    nil,
		"notjson": `{"artifacts": "/a", `,
	}
	for id, config := range configs {
		if _, err := w.Exec(`INSERT INTO jobs (id, kind, repo, base, parallel, pid, config, state, started)
			VALUES (?, 'run', '/r', 'b', 1, 1, ?, 'finished', '2026-01-01T00:00:00Z')`, id, config); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	db := openTestDB(t, path)
	for _, tt := range []struct {
		id         string
		minSpeedup float64
		artifacts  string
	}{{"set", 0.125, "/a"}, {"silent", 0.05, ""}, {"none", 0.05, ""}, {"notjson", 0.05, ""}} {
		j, err := db.Job(ctx, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if j.MinSpeedup != tt.minSpeedup || j.Artifacts != tt.artifacts {
			t.Errorf("%s: min_speedup %v, artifacts %q; want %v, %q", tt.id, j.MinSpeedup, j.Artifacts, tt.minSpeedup, tt.artifacts)
		}
	}
}

package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The write load of the concurrency tests: writers goroutines, each adding
// loadBatches batches of loadBatchSize samples and one event per batch.
const (
	writers       = 8
	loadBatches   = 20
	loadBatchSize = 50
)

// writerEnv names the store file a helper process writes to; see TestMain.
const writerEnv = "STORE_TEST_WRITER"

// TestMain runs the write load of TestDB_TwoProcesses when this test binary
// is started as its second process.
func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		if err := openAndLoad(context.Background(), path, "child", "parent"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// openAndLoad opens the store at path and creates a job named jobID. It
// waits for the other process's job, so that the two loads overlap, and
// runs the write load on its job.
func openAndLoad(ctx context.Context, path, jobID, other string) error {
	db, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.CreateJob(ctx, newJob(jobID)); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		_, err := db.Job(ctx, other)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	return load(ctx, db, jobID, jobID)
}

// load runs the write load on db, for a job, with candidate names starting
// with prefix. Each writer also reads its own rows back after each batch.
func load(ctx context.Context, db *DB, jobID, prefix string) error {
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			if err := loadOne(ctx, db, jobID, fmt.Sprintf("%s-%d", prefix, w)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs // the first error, or nil
}

func loadOne(ctx context.Context, db *DB, jobID, candidate string) error {
	rows := make([]BenchSample, loadBatchSize)
	for b := range loadBatches {
		for i := range rows {
			rows[i] = BenchSample{JobID: jobID, Candidate: candidate, Benchmark: "BenchmarkX", Unit: "sec/op",
				Side: "base", Round: b, Order: b*loadBatchSize + i, Value: float64(i), Iterations: 1000}
		}
		if err := db.AddBenchSamples(ctx, rows); err != nil {
			return err
		}
		if err := db.AddEvent(ctx, Event{JobID: jobID, Kind: "batch", Candidate: candidate}); err != nil {
			return err
		}
		got, err := db.BenchSamples(ctx, jobID, candidate)
		if err != nil {
			return err
		}
		if want := (b + 1) * loadBatchSize; len(got) != want {
			return fmt.Errorf("%s: read %d samples after batch %d, want %d", candidate, len(got), b, want)
		}
	}
	return nil
}

// checkLoad checks that the rows of a completed load for job are all there.
func checkLoad(t *testing.T, db *DB, jobID string, handles int) {
	t.Helper()
	var samples, events int
	db.r.QueryRow("SELECT count(*) FROM bench_samples WHERE job_id = ?", jobID).Scan(&samples)
	db.r.QueryRow("SELECT count(*) FROM events WHERE job_id = ?", jobID).Scan(&events)
	if want := handles * writers * loadBatches * loadBatchSize; samples != want {
		t.Errorf("job %s: %d samples, want %d", jobID, samples, want)
	}
	if want := handles * writers * loadBatches; events != want {
		t.Errorf("job %s: %d events, want %d", jobID, events, want)
	}
}

// TestDB_Concurrent writes from many goroutines through two DBs on one file.
func TestDB_Concurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "optimizer.db")
	ctx := context.Background()
	dbs := []*DB{openTestDB(t, path), openTestDB(t, path)}
	addJob(t, dbs[0], "job1")
	var wg sync.WaitGroup
	for i, db := range dbs {
		wg.Go(func() {
			if err := load(ctx, db, "job1", fmt.Sprint("db", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	checkLoad(t, dbs[1], "job1", len(dbs))
}

// TestDB_TwoProcesses creates a store and writes to it from two processes
// at once: this one, and this test binary started again (see TestMain).
func TestDB_TwoProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable:", err)
	}
	path := filepath.Join(t.TempDir(), "optimizer.db")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	var out bytes.Buffer // one writer for both: exec serializes its writes
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	loadErr := openAndLoad(context.Background(), path, "parent", "child")
	if err := cmd.Wait(); err != nil {
		t.Errorf("writer process: %v\n%s", err, out.String())
	}
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	db := openTestDB(t, path)
	checkLoad(t, db, "parent", 1)
	checkLoad(t, db, "child", 1)
}

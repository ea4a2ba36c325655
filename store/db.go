package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/optimizer-dev/optimizer/internal/perm"
)

// Errors a caller can recognise.
var (
	// ErrNotFound is returned by lookups that find nothing: a job, a
	// candidate to update, a cached baseline.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous is returned by [DB.Job] when an id prefix matches more
	// than one job.
	ErrAmbiguous = errors.New("ambiguous job id prefix")
	// ErrSchemaTooNew is returned by [Open] for a database whose schema was
	// written by a newer version of optimizer than this one.
	ErrSchemaTooNew = errors.New("database schema is newer than this optimizer")
)

// Connection settings. The DSN parameters are modernc.org/sqlite's. Each
// _pragma runs on every new connection (busy_timeout first), and _txlock
// makes BeginTx issue BEGIN IMMEDIATE. The busy_timeout pragma is how long,
// in milliseconds, a connection waits for another's lock before it fails
// with SQLITE_BUSY. synchronous(NORMAL) is safe in WAL mode. A crash of the
// process loses nothing committed. Only a crash of the OS can lose the last
// commits, and never consistency.
const (
	// readConns bounds the read-only connections of one DB.
	readConns = 4

	dsnParams = "_pragma=busy_timeout(10000)" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_txlock=immediate"
	readOnlyParam = "&_pragma=query_only(1)"
)

// DB is a store open on one SQLite file. DB is safe for concurrent use by
// many goroutines, and other processes may have the same file open.
// Close it when done.
type DB struct {
	path string
	// w has a single connection: writers of this process queue for it in
	// Go, and only other processes contend for SQLite's write lock.
	w *sql.DB
	// r holds read-only connections; in WAL mode they never wait for w.
	r *sql.DB
}

// Open opens the store at path, creating the file (mode 0600) and its
// parent directory (0700) if they do not exist, and applies any migration
// the file lacks. A file more open than 0600 is tightened. It refuses
// a file whose schema is newer than this code with [ErrSchemaTooNew].
// Its errors name the path but not the operation, which the caller knows.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", path, ErrIsDirectory)
	}
	if err := os.MkdirAll(filepath.Dir(abs), perm.Dir); err != nil {
		return nil, fmt.Errorf("create directory: %w", err)
	}
	private(abs)
	// Two processes opening a new file at once can collide while one of
	// them turns it to WAL. SQLite then fails at once with SQLITE_BUSY
	// instead of waiting in busy_timeout. Such an open is retried.
	deadline := time.Now().Add(openBusyWait)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		db := &DB{path: path}
		err := db.open(ctx, abs)
		if err == nil {
			return db, nil
		}
		db.Close()
		if !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("%s: %w", path, explain(abs, err))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", path, err)
		case <-time.After(wait):
		}
	}
}

// private makes the store's files readable by their owner only. It makes
// the file with mode 0600 before SQLite does, since SQLite gives its -wal
// and -shm files the file's mode. It tightens an existing file, -wal and
// -shm that are more open. It is best effort: a file it cannot change
// (another user's, a read-only file system) is opened as it is.
func private(abs string) {
	if f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm.File); err == nil {
		f.Close()
	}
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		perm.PrivateFile(p)
	}
}

// openBusyWait bounds how long [Open] retries a file that is busy, as
// busy_timeout does for a statement.
const openBusyWait = 10 * time.Second

// isBusy reports whether err is SQLITE_BUSY or one of its extended codes.
func isBusy(err error) bool {
	var e interface{ Code() int }
	return errors.As(err, &e) && e.Code()&0xff == sqliteBusy
}

// sqliteBusy is SQLite's primary result code SQLITE_BUSY.
const sqliteBusy = 5

// open opens the write connection, migrates, then opens the read pool, so
// that read connections only ever see a WAL database with the full schema.
func (db *DB) open(ctx context.Context, abs string) error {
	w, err := sql.Open("sqlite", dsn(abs, false))
	if err != nil {
		return err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	db.w = w
	if _, err := db.migrate(ctx, migrations); err != nil {
		return err
	}
	r, err := sql.Open("sqlite", dsn(abs, true))
	if err != nil {
		return err
	}
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	db.r = r
	return r.PingContext(ctx)
}

// dsn is the data source name for the file at the absolute path abs. The
// path is a file: URI, escaped, so that no character of it ('?', '#', '%')
// is read as the start of the parameters.
func dsn(abs string, readOnly bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:/C:/...
	}
	u := url.URL{Path: p}
	s := "file:" + u.EscapedPath() + "?" + dsnParams
	if readOnly {
		s += readOnlyParam
	}
	return s
}

// Path returns the path the DB was opened with.
func (db *DB) Path() string { return db.path }

// Close closes the DB's connections. Nothing may use the DB after.
func (db *DB) Close() error {
	var errs []error
	for i, c := range []*sql.DB{db.r, db.w} {
		if c != nil && (i == 0 || c != db.r) { // a read-only DB has one pool for both
			errs = append(errs, c.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

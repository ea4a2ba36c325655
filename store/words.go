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
)

// ErrIsDirectory is returned by [Open] and [OpenReadOnly] for a path that
// names a directory.
var ErrIsDirectory = errors.New("is a directory, not a store file")

// SQLite's primary result codes for a file it cannot write.
const (
	sqliteReadOnly = 8  // SQLITE_READONLY
	sqliteIOErr    = 10 // SQLITE_IOERR
	sqliteFull     = 13 // SQLITE_FULL
	sqliteCantOpen = 14 // SQLITE_CANTOPEN
)

// explain adds to an open error what SQLite's own words ("unable to open
// database file", "disk I/O error") leave out. It says what is wrong with
// the file or its directory, found by trying to write there as SQLite
// would.
func explain(abs string, err error) error {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code() & 0xff {
	case sqliteReadOnly, sqliteIOErr, sqliteFull, sqliteCantOpen:
	default:
		return err
	}
	if why := probe(abs); why != "" {
		return fmt.Errorf("%w: %s", err, why)
	}
	return err
}

// probe writes a page to a new file beside abs, then opens abs for writing,
// and says in words why either fails; "" when both work.
func probe(abs string) string {
	dir := filepath.Dir(abs)
	f, err := os.CreateTemp(dir, ".optimizer-probe-*")
	if err != nil {
		return fmt.Sprintf("cannot create a file in %s: %s", dir, errText(err))
	}
	_, werr := f.Write(make([]byte, 64<<10))
	f.Close()
	os.Remove(f.Name())
	if werr != nil {
		return fmt.Sprintf("cannot write in %s: %s", dir, errText(werr))
	}
	if g, err := os.OpenFile(abs, os.O_RDWR, 0); err == nil {
		g.Close()
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("cannot write the store file: %s", errText(err))
	}
	return ""
}

// errText is the system's words for err, without the path it names.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// OpenReadOnly opens the store at path for reading only, for a store that
// [Open] cannot open for writing. That is a store on a read-only file
// system, or a file the user may only read. It applies no migration, and
// refuses a store whose schema is older or newer than this code. Every
// write to it fails.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", path, ErrIsDirectory)
	}
	// A WAL store needs its -shm file; where none can be made, it is read
	// as immutable: nothing can write to a read-only file system meanwhile.
	var last error
	for _, extra := range []string{"", "&immutable=1"} {
		r, err := sql.Open("sqlite", readOnlyDSN(abs)+extra)
		if err != nil {
			return nil, err
		}
		r.SetMaxOpenConns(readConns)
		v, err := userVersion(ctx, r)
		if err != nil {
			r.Close()
			last = err
			continue
		}
		ms, err := loadMigrations(migrations)
		if err == nil && v != len(ms) {
			err = fmt.Errorf("its schema is version %d, this optimizer's is %d, and a read-only store cannot be migrated", v, len(ms))
		}
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &DB{path: path, w: r, r: r}, nil
	}
	return nil, fmt.Errorf("%s: %w", path, explain(abs, last))
}

func readOnlyDSN(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u := url.URL{Path: p}
	return "file:" + u.EscapedPath() + "?mode=ro&_pragma=busy_timeout(10000)" + readOnlyParam
}

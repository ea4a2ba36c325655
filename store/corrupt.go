package store

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// SQLite's primary result codes for a damaged file.
const (
	sqliteCorrupt = 11 // SQLITE_CORRUPT: the database disk image is malformed
	sqliteNotADB  = 26 // SQLITE_NOTADB: the file is not a database
)

// IsCorrupt reports whether err says the store's file is damaged or is not
// a SQLite database at all, as opposed to busy, full or unreadable.
func IsCorrupt(err error) bool {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return false
	}
	c := e.Code() & 0xff
	return c == sqliteCorrupt || c == sqliteNotADB
}

// MoveAside renames a damaged store file, and its -wal and -shm files if
// there are any, to PATH.corrupt-TIME (UTC). A new store can then be made at
// path, and the old one can still be examined or recovered by hand. It
// never deletes anything. It returns the new name of the main file. No
// connection to the file may be open.
func MoveAside(path string) (string, error) {
	aside := path + ".corrupt-" + time.Now().UTC().Format("20060102-150405.000")
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("move the store aside: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return aside, fmt.Errorf("move the store's %s file aside: %w", suffix, err)
		}
	}
	return aside, nil
}

package store

import (
	"fmt"
	"time"
)

// How Go values are stored in columns, and read back.

// timeLayout is RFC 3339 in UTC with a fixed nine fraction digits, so that
// text order is time order; SQLite's date functions read it too.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// timeArg is the column value of t: NULL for the zero time.
func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(timeLayout)
}

// orNow is t, or the current time if t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// timeCol scans a time column into *t, as UTC; NULL is the zero time.
type timeCol struct{ t *time.Time }

// Scan implements sql.Scanner.
func (c timeCol) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("time column holds %T, want text", src)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("parse time column: %w", err)
	}
	*c.t = t.UTC()
	return nil
}

// jsonArg is the column value of a JSON document: text, so that SQLite's
// JSON functions read it, or NULL for nil.
func jsonArg(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

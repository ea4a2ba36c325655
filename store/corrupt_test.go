package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpen_Corrupt opens a file that is not a database, and a store whose
// pages were overwritten. Both are recognised as corrupt, and MoveAside
// keeps every byte of them under a new name.
func TestOpen_Corrupt(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		spoil func(t *testing.T, path string)
	}{
		{"NotADatabase", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("not a database\n", 500)), 0o644)
		}},
		{"PagesOverwritten", func(t *testing.T, path string) {
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := 100; i < len(data); i++ { // keep the header, ruin the rest
				data[i] = byte(i * 7)
			}
			os.WriteFile(path, data, 0o644)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "optimizer.db")
			tt.spoil(t, path)
			want, _ := os.ReadFile(path)
			db, err := Open(ctx, path)
			if err == nil {
				_, err = db.MarkInterrupted(ctx, func(int, string) bool { return false })
				db.Close()
			}
			if !IsCorrupt(err) {
				t.Fatalf("open a corrupt store: %v, want an error IsCorrupt knows", err)
			}
			aside, err := MoveAside(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(aside); err != nil || string(got) != string(want) {
				t.Errorf("the store moved aside to %s differs from the corrupt one (%v)", aside, err)
			}
			db, err = Open(ctx, path)
			if err != nil {
				t.Fatalf("open a new store where the corrupt one was: %v", err)
			}
			db.Close()
		})
	}
}

package candidate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// Digest is a hash of what the candidate holds: its patch, its files in path
// order, its deletions and its Invalid message. It leaves out its name and
// where it came from. Unlike TreeID it needs no repository. Two candidates
// with equal digests make the same change, while two with different digests
// may still make the same tree.
func (c Candidate) Digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "p%d\x00", len(c.Patch))
	h.Write(c.Patch)
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "\x00f%s\x00%d\x00", p, len(c.Files[p]))
		h.Write(c.Files[p])
	}
	deleted := slices.Clone(c.Deleted)
	slices.Sort(deleted)
	for _, p := range deleted {
		fmt.Fprintf(h, "\x00d%s", p)
	}
	if c.Invalid != nil {
		fmt.Fprintf(h, "\x00i%s", c.Invalid)
	}
	return hex.EncodeToString(h.Sum(nil))
}

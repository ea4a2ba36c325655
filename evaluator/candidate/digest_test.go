package candidate

import (
	"errors"
	"testing"
)

func TestCandidate_Digest(t *testing.T) {
	base := Candidate{Name: "a", Source: "x", Files: map[string][]byte{"a": []byte("1"), "b": []byte("2")}, Deleted: []string{"c", "d"}}
	same := Candidate{Name: "other", Source: "y", Files: map[string][]byte{"b": []byte("2"), "a": []byte("1")}, Deleted: []string{"d", "c"}}
	if base.Digest() != same.Digest() {
		t.Error("name, source or order changed the digest")
	}
	for name, c := range map[string]Candidate{
		"Content":  {Files: map[string][]byte{"a": []byte("9"), "b": []byte("2")}, Deleted: []string{"c", "d"}},
		"Path":     {Files: map[string][]byte{"a2": []byte("1"), "b": []byte("2")}, Deleted: []string{"c", "d"}},
		"Deleted":  {Files: map[string][]byte{"a": []byte("1"), "b": []byte("2")}, Deleted: []string{"c"}},
		"Patch":    {Patch: []byte("x"), Files: map[string][]byte{"a": []byte("1"), "b": []byte("2")}, Deleted: []string{"c", "d"}},
		"Invalid":  {Files: map[string][]byte{"a": []byte("1"), "b": []byte("2")}, Deleted: []string{"c", "d"}, Invalid: errors.New("bad")},
		"Boundary": {Files: map[string][]byte{"a": []byte("12"), "b": nil}, Deleted: []string{"c", "d"}},
	} {
		if c.Digest() == base.Digest() {
			t.Errorf("%s: a different change has the same digest", name)
		}
	}
}

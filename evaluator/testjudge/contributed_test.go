package testjudge

import (
	"slices"
	"strings"
	"testing"
)

// TestContributed: another candidate fails on a contributed test that
// passes at base; the author fails on its own failing test, unless base's
// own run fails it too.
func TestContributed(t *testing.T) {
	atBase := goRun(0, "pass", [2]string{"TestAdded", "pass"})
	if f := Contributed("strict", nil, false, atBase.Tests, goRun(0, "pass", [2]string{"TestAdded", "pass"}).Tests); f != nil {
		t.Errorf("passing the added test: %+v", f)
	}
	f := Contributed("strict", nil, false, atBase.Tests, goRun(1, "fail", [2]string{"TestAdded", "fail"}).Tests)
	if f == nil || !slices.Equal(f.Tests, []string{"m.TestAdded"}) || f.Message != "fails m.TestAdded, added by candidate strict, which passes at base" {
		t.Errorf("failing the added test: %+v", f)
	}
	own := goRun(1, "fail", [2]string{"TestAdded", "fail"}).Tests
	if f := Own(own, nil); f == nil || !strings.HasPrefix(f.Message, "fails the tests it adds: m.TestAdded") {
		t.Errorf("the author failing its test: %+v", f)
	}
	if f := Own(own, own); f != nil {
		t.Errorf("the author failing a test base's own run fails: %+v", f)
	}
}

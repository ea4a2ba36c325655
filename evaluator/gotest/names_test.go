package gotest

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		want []string
	}{
		{"Plain", []string{"example.com/m/sumsq.TestA", "example.com/m/words.TestB"}, []string{"sumsq.TestA", "words.TestB"}},
		{"Subtests", []string{"example.com/m/sumsq.TestA", "example.com/m/sumsq.TestA/one", "example.com/m/sumsq.TestA/two"},
			[]string{"sumsq.TestA (2 subtests)"}},
		{"OrphanSubtest", []string{"m/p.TestA/x"}, []string{"p.TestA/x"}},
		// One subtest is named, nested ones whole.
		{"OneSubtest", []string{"m/p.TestA", "m/p.TestA/x/y", "m/p.TestB"}, []string{"p.TestA/x/y", "p.TestB"}},
		{"Package", []string{"example.com/m/sumsq"}, []string{"sumsq"}},
		{"NoPackage", []string{"TestA", "TestA/b"}, []string{"TestA/b"}},
		{"DottedPath", []string{"gopkg.in/yaml.v3.TestX"}, []string{"yaml.v3.TestX"}},
		{"Empty", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Names(tt.keys); !slices.Equal(got, tt.want) {
				t.Errorf("Names(%q) = %q, want %q", tt.keys, got, tt.want)
			}
		})
	}
}

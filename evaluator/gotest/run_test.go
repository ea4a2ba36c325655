package gotest

import "testing"

func TestSplitKey(t *testing.T) {
	for _, tt := range []struct {
		key, pkg, test string
	}{
		{"example.com/m/a.TestX", "example.com/m/a", "TestX"},
		{"gopkg.in/yaml.v3.TestX/sub.case/a.TestY", "gopkg.in/yaml.v3", "TestX/sub.case/a.TestY"},
		{"example.com/m/a", "example.com/m/a", ""},
		{"example.com/m/a.BenchmarkY", "example.com/m/a", "BenchmarkY"},
		{"a.ExampleZ", "a", "ExampleZ"},
		{"p.FuzzQ/seed#0", "p", "FuzzQ/seed#0"},
		{"TestBare", "", "TestBare"},
		{"", "", ""},
	} {
		t.Run(tt.key, func(t *testing.T) {
			if pkg, test := SplitKey(tt.key); pkg != tt.pkg || test != tt.test {
				t.Errorf("SplitKey = %q, %q; want %q, %q", pkg, test, tt.pkg, tt.test)
			}
			if tt.key != "" && Key(tt.pkg, tt.test) != tt.key {
				t.Errorf("Key(%q, %q) = %q", tt.pkg, tt.test, Key(tt.pkg, tt.test))
			}
		})
	}
	t.Run("Run.Split", func(t *testing.T) {
		r := &Run{Packages: map[string]Status{"ex.com/Testy": StatusPass, "ex.com": StatusPass}}
		for key, want := range map[string][2]string{
			"ex.com/Testy.TestA": {"ex.com/Testy", "TestA"},
			"ex.com/Testy":       {"ex.com/Testy", ""},
			"ex.com.TestB/c.d":   {"ex.com", "TestB/c.d"},
			"other.TestC":        {"other", "TestC"},
		} {
			if pkg, test := r.Split(key); pkg != want[0] || test != want[1] {
				t.Errorf("Split(%q) = %q, %q; want %q, %q", key, pkg, test, want[0], want[1])
			}
		}
	})
}

package proc

import "testing"

func TestTail(t *testing.T) {
	for _, tt := range []struct {
		name string
		out  string
		n    int
		want string
	}{
		{"Empty", "", 3, ""},
		{"OnlyNewlines", "\n\n\n", 3, ""},
		{"Fewer", "a\nb\n", 3, "a\nb"},
		{"Exact", "a\nb\nc", 3, "a\nb\nc"},
		{"More", "a\nb\nc\nd\n\n", 2, "c\nd"},
		{"BlankLineStartsWindow", "a\n\nb\n", 2, "b"},
		{"BlankLineInside", "a\nb\n\nc\n", 3, "b\n\nc"},
		{"NoNewline", "abc", 1, "abc"},
		{"Zero", "a\nb", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tail([]byte(tt.out), tt.n); got != tt.want {
				t.Errorf("Tail(%q, %d) = %q, want %q", tt.out, tt.n, got, tt.want)
			}
		})
	}
}

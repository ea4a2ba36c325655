package evaluator

import "testing"

func TestNoTestCache(t *testing.T) {
	for _, tt := range []struct{ name, user, want string }{
		{"Empty", "", "-count=1"},
		{"Appended", "-mod=mod -trimpath", "-mod=mod -trimpath -count=1"},
		{"UsersCount", "-count=3", "-count=3"},
		{"UsersCountLong", "-mod=mod --count=2", "-mod=mod --count=2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := noTestCache(tt.user); got != tt.want {
				t.Errorf("noTestCache(%q) = %q, want %q", tt.user, got, tt.want)
			}
		})
	}
}

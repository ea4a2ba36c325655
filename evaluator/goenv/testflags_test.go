package goenv

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

func TestTestFlags(t *testing.T) {
	for _, tt := range []struct {
		name, user string
		build      []string
		want       string
	}{
		{"NoTags", "", nil, "-count=1"},
		{"Tags", "", []string{"-tags=noasm"}, "-count=1 -tags=noasm"},
		{"TagsInBuildFlags", "-mod=mod", []string{"-trimpath", "-tags", "a,b"}, "-mod=mod -count=1 -tags=a,b"},
		{"LastTagsWins", "", []string{"-tags=a", "--tags=b"}, "-count=1 -tags=b"},
		{"UsersTagsWin", "-tags=mine", []string{"-tags=noasm"}, "-tags=mine -count=1"},
		{"UsersLongTagsWin", "--tags=mine -count=2", []string{"-tags=noasm"}, "--tags=mine -count=2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := TestFlags(tt.user, tt.build); got != tt.want {
				t.Errorf("TestFlags(%q, %q) = %q, want %q", tt.user, tt.build, got, tt.want)
			}
		})
	}
}

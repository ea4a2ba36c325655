package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteDemoOutro(t *testing.T) {
	for _, tt := range []struct {
		name string
		kept bool
		want []string
	}{
		{"Deleted", false, []string{"/tmp/optimizer-demo-1 is deleted now", "optimizer demo --keep"}},
		{"Kept", true, []string{"kept in /tmp/optimizer-demo-1/repo", "optimizer history --repo /tmp/optimizer-demo-1/repo"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeDemoOutro(&b, "/tmp/optimizer-demo-1", "/tmp/optimizer-demo-1/repo", tt.kept)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("outro lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

package gotest

import "testing"

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"Events", `{"Action":"run","Test":"TestA"}
{"Action":"output","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Test":"TestA","Output":"panic: kaboom\n"}
{"Action":"fail","Test":"TestA"}
`, "=== RUN   TestA\npanic: kaboom\n"},
		{"TextKept", "go: cannot find main module\n{\"Action\":\"output\",\"Output\":\"FAIL\\n\"}\n", "go: cannot find main module\nFAIL\n"},
		{"BrokenJSONKept", "{\"Action\":\"outp\n", "{\"Action\":\"outp\n"},
		{"NoNewlineAtEnd", `{"Action":"output","Output":"ok  \tm\t0.1s\n"}`, "ok  \tm\t0.1s\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decode(tt.in); got != tt.want {
				t.Errorf("Decode:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

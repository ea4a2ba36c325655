package gotest

import (
	"encoding/json"
	"strings"
)

// Decode turns a go test -json stream back into the text a person would
// have seen: each output event's text, in order. Lines that are not events
// (the go command's own errors, when stderr shares the stream) are kept as
// they are; events without output are dropped.
func Decode(stream string) string {
	var b strings.Builder
	for line := range strings.Lines(stream) {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "{") {
			b.WriteString(line)
			continue
		}
		var ev event
		if json.Unmarshal([]byte(trimmed), &ev) != nil {
			b.WriteString(line)
			continue
		}
		b.WriteString(ev.Output)
	}
	return b.String()
}

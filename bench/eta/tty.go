package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// captureTTY runs the CLI on a pseudo-terminal, 200 columns wide, through
// util-linux's script, and stamps what it draws: each line, and each
// redraw of the bar (a text ended by a carriage return), as it arrives,
// with the terminal's escape sequences taken out. The bar is redrawn
// several times a second, so the ETA on it counts as printed at each.
func captureTTY(bin string, args []string) ([]stamped, error) {
	if _, err := exec.LookPath("script"); err != nil {
		return nil, fmt.Errorf("-tty needs util-linux's script: %w", err)
	}
	quoted := []string{shellQuote(bin)}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	cmd := exec.Command("script", "-q", "-e", "-f", "-c", "stty cols 200 rows 50; exec "+strings.Join(quoted, " "), "/dev/null")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	return stampRun(cmd, out, splitTerminal)
}

// escapeRe matches a terminal's CSI and OSC sequences.
var escapeRe = regexp.MustCompile("\x1b(?:\\[[0-9;?]*[ -/]*[@-~]|\\][^\x07]*\x07)")

// splitTerminal reads a terminal's output from r until it ends, and
// returns its texts between carriage returns and newlines, without escape
// sequences or the spaces around them, each stamped with the time now
// gives when the text ended. It echoes each new text to stderr.
func splitTerminal(r io.Reader, now func() time.Duration) []stamped {
	var lines []stamped
	var last string
	br := bufio.NewReader(r)
	var cur strings.Builder
	for {
		b, err := br.ReadByte()
		if err != nil {
			return lines
		}
		if b != '\r' && b != '\n' {
			cur.WriteByte(b)
			continue
		}
		text := strings.TrimSpace(escapeRe.ReplaceAllString(cur.String(), ""))
		cur.Reset()
		if text == "" {
			continue
		}
		at := now()
		lines = append(lines, stamped{at, text})
		if text != last {
			fmt.Fprintf(os.Stderr, "%7.1fs %s\n", at.Seconds(), text)
			last = text
		}
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package watch

import (
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// TestMain runs the tests off the machine's lock and daemon socket.
func TestMain(m *testing.M) { testenv.Main(m) }

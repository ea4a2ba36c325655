package candidate

import (
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// TestMain runs the tests with git pointed only at their own repositories.
func TestMain(m *testing.M) { testenv.Main(m) }

package daemon

import (
	"net/http"

	"github.com/optimizer-dev/optimizer/mcp"
)

// mcpHandler serves the MCP tools (package mcp) over streamable HTTP at
// /v1/mcp, behind the listener's checks like every route. The tools speak
// the API through api in this process, so a job an agent submits passes
// the same validation and policy as any other. The benchmarks and targets
// tools run base's benchmarks outside the sandbox: only a daemon started
// with --allow-unsandboxed lets them.
func (s *Server) mcpHandler(api http.Handler) http.Handler {
	return mcp.Handler(mcp.Options{
		Jobs:           s.opts.MCPJobs(api),
		RunBase:        s.opts.Policy.AllowUnsandboxed,
		RunBaseRefusal: "this daemon runs no code outside the sandbox, and the benchmarks and targets tools run base's benchmarks outside it: start the daemon with --allow-unsandboxed to allow them, or use optimizer mcp, which runs them as you",
		Logger:         s.log.With("component", "mcp"),
	})
}

package daemon

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// initialize is an MCP client's first message.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// TestMCP_Socket: the Go SDK's client reaches the tools at /v1/mcp over the
// unix socket. A daemon without --allow-unsandboxed refuses a tool that
// would run base's code outside the sandbox. The refusal is a tool error
// naming the flag. An unknown job is a tool error too.
func TestMCP_Socket(t *testing.T) {
	srv, _ := startServer(t, nil)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", srv.opts.Socket)
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: "http://optimizer/v1/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 6 {
		t.Errorf("%d tools, want 6", len(tools.Tools))
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"targets", map[string]any{"repo": shellRepo(t)}, "--allow-unsandboxed"},
		{"report", map[string]any{"job": "d-nope"}, `no job "d-nope"`},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s: %v", tt.tool, err)
		}
		if msg := res.Content[0].(*sdk.TextContent).Text; !res.IsError || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: error %v, %q; want a tool error saying %q", tt.tool, res.IsError, msg, tt.want)
		}
	}
}

// TestMCP_Guard performs the attacks of a page on another origin, and of
// a DNS-rebound name, against /v1/mcp: each is refused before the MCP
// handler sees it, as for every route.
func TestMCP_Guard(t *testing.T) {
	srv, _ := startServer(t, func(o *Options) { o.Listen, o.Token = "127.0.0.1:0", "s3cret" })
	url := "http://" + srv.Addr().String() + "/v1/mcp"
	for _, tt := range []struct {
		name    string
		header  map[string]string
		host    string
		want    int
		wantMsg string
	}{
		{"NoToken", map[string]string{"Content-Type": "application/json"}, "", http.StatusUnauthorized, "missing token"},
		{"CrossOrigin", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret",
			"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, "", http.StatusForbidden, "cross-origin"},
		{"FormPost", map[string]string{"Content-Type": "text/plain", "Authorization": "Bearer s3cret"}, "", http.StatusUnsupportedMediaType, "application/json"},
		{"Rebound", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret"}, "evil.example:80", http.StatusForbidden, "Host"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b strings.Builder
			buf := make([]byte, 4096)
			n, _ := resp.Body.Read(buf)
			b.Write(buf[:n])
			if resp.StatusCode != tt.want || !strings.Contains(b.String(), tt.wantMsg) {
				t.Errorf("status %d %q, want %d saying %q", resp.StatusCode, b.String(), tt.want, tt.wantMsg)
			}
		})
	}
	// With the token and nothing amiss, the same request is answered.
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("initialize with the token: status %d, want 200", resp.StatusCode)
	}
}

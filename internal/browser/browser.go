// Package browser drives a headless Chromium for the dashboard's tests. It
// opens pages, reads the DOM, saves screenshots, and records the URL of
// every request the pages make. So a test can prove none leaves the
// machine. It uses Debian's chromium through github.com/chromedp/chromedp.
package browser

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// WaitTimeout bounds each wait of Open, Wait and Poll: generous, for a
// shared machine, yet a page that never updates fails in minutes, not at
// the test binary's timeout.
const WaitTimeout = 5 * time.Minute

// A Tab is one headless Chromium tab, closed when its test ends. Its
// methods fail the test on error; they are for one test goroutine.
type Tab struct {
	Ctx context.Context // chromedp's context, for what the methods lack

	mu       sync.Mutex
	requests []string
}

// New starts chromium headless for tb. It fails, rather than skips, when
// chromium is missing: .ci/run installs it. Flags are chromium's own, added
// to the usual ones (chromedp.Flag("host-resolver-rules", ...), say).
func New(tb testing.TB, flags ...chromedp.ExecAllocatorOption) *Tab {
	tb.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		tb.Fatalf("the browser tests need Debian's chromium (apt-get install chromium; .ci/run does): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.Headless, chromedp.DisableGPU, chromedp.NoSandbox,
		chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1200, 900),
	)
	opts = append(opts, flags...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &Tab{}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		}
	}))
	ctx, cancelTimeout := context.WithTimeout(ctx, 20*time.Minute)
	tb.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	b.Ctx = ctx
	b.Viewport(tb, 1200, 900)
	return b
}

// Viewport sets the page's size.
func (b *Tab) Viewport(tb testing.TB, width, height int64) {
	tb.Helper()
	if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(width, height)); err != nil {
		tb.Fatalf("set the viewport: %v", err)
	}
}

// Open loads a page and waits until an element matches the CSS selector sel.
func (b *Tab) Open(tb testing.TB, url, sel string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, WaitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
		tb.Fatalf("open %s and wait for %s: %v", url, sel, err)
	}
}

// Wait waits until an element matches sel.
func (b *Tab) Wait(tb testing.TB, sel string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, WaitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
		tb.Fatalf("wait for %s: %v", sel, err)
	}
}

// Count is how many elements match the CSS selector sel.
func (b *Tab) Count(tb testing.TB, sel string) int {
	tb.Helper()
	n, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		tb.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// Text is the text of the first element matching sel.
func (b *Tab) Text(tb testing.TB, sel string) string {
	tb.Helper()
	s, err := chromedp.Run(b.Ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		tb.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// Eval evaluates a JavaScript expression that gives a boolean.
func (b *Tab) Eval(tb testing.TB, expr string) bool {
	tb.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](expr))
	if err != nil {
		tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// Poll waits until a JavaScript expression is true.
func (b *Tab) Poll(tb testing.TB, expr string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, WaitTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
		tb.Fatalf("wait for %s: %v", expr, err)
	}
}

// Scripts turns the pages' JavaScript on or off.
func (b *Tab) Scripts(tb testing.TB, on bool) {
	tb.Helper()
	if _, err := chromedp.Call(b.Ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
		tb.Fatalf("turn scripts on=%v: %v", on, err)
	}
}

// Screenshot saves the viewport as a PNG at path.
func (b *Tab) Screenshot(tb testing.TB, path string) {
	tb.Helper()
	png, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("wrote %s (%d bytes)", path, len(png))
}

// CheckLocal fails the test for any request the pages made to a host other
// than origin's, and when they made none.
func (b *Tab) CheckLocal(tb testing.TB, origin string) {
	tb.Helper()
	o, err := url.Parse(origin)
	if err != nil {
		tb.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) == 0 {
		tb.Fatal("the browser recorded no request at all")
	}
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "data" && u.Host != o.Host) {
			tb.Errorf("a page requested %s, which is not on %s", r, o.Host)
		}
	}
	tb.Logf("%d requests, all to %s", len(b.requests), o.Host)
}

package daemon

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// TestServer_HalfOpenConnections performs the denial of service of issue
// 33: thousands of TCP connections that never finish their headers, with
// no token. The process may hold fewer descriptors than twice their
// number, as a daemon with its default limit held fewer than the 20,000
// the attack opened. Without a cap on connections, the daemon's side of
// them takes every descriptor left and the socket stops answering. With
// the cap, the socket answers while they are held, and TCP answers again
// once they are gone.
func TestServer_HalfOpenConnections(t *testing.T) {
	testenv.Long(t)
	const attack = 5000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	want := uint64(attack + attack/2) // room for the attack and the capped server, not for two of each
	if lim.Max < want {
		t.Skipf("RLIMIT_NOFILE's hard limit %d is under %d", lim.Max, want)
	}
	old := lim
	lim.Cur = want
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })

	srv, c := startServer(t, func(o *Options) { o.Listen, o.Token = "127.0.0.1:0", "s3cret" })
	addr := srv.Addr().String()
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
		next  = make(chan struct{}, attack)
	)
	for range attack {
		next <- struct{}{}
	}
	close(next)
	for range 64 {
		wg.Go(func() {
			d := net.Dialer{Timeout: 3 * time.Second}
			for range next {
				conn, err := d.Dial("tcp", addr)
				if err != nil {
					continue // the kernel's queue is full: the attack holds what it has
				}
				fmt.Fprintf(conn, "GET /v1/health HTTP/1.1\r\nHost: %s\r\n", addr) // and never the blank line
				mu.Lock()
				conns = append(conns, conn)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, conn := range conns {
			conn.Close()
		}
	})
	t.Logf("%d half-open connections held", len(conns))

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := c.Health(ctx)
	if err != nil {
		t.Fatalf("the socket does not answer while %d half-open connections are held: %v", len(conns), err)
	}
	t.Logf("the socket answered in %v (queued %d)", time.Since(start), h.Queued)

	for _, conn := range conns {
		conn.Close()
	}
	conns = nil
	tc := client.NewTCP(addr, "s3cret")
	if _, err := tc.Health(ctx); err != nil {
		t.Errorf("TCP does not answer once the attack is gone: %v", err)
	}
}

// TestServer_LargeBody: a body over the limit is refused without being
// read into the daemon's memory when it says its length. It is read no
// further than the limit when it does not (chunked). Either way the daemon
// answers 413 and allocates far less than the body.
func TestServer_LargeBody(t *testing.T) {
	const size = 70 << 20
	srv, _ := startServer(t, nil)
	hc := unixHTTP(srv.opts.Socket)
	body := func() io.Reader {
		return io.MultiReader(strings.NewReader(`{"repo": "`), io.LimitReader(zeros{}, size), strings.NewReader(`"}`))
	}
	for _, tt := range []struct {
		name   string
		length int64 // -1: chunked
		most   uint64
	}{
		{name: "ContentLength", length: size + 12, most: 8 << 20},
		{name: "Chunked", length: -1, most: DefaultMaxBody + 8<<20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", "http://optimizer/v1/jobs", body())
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = tt.length
			req.Header.Set("Content-Type", "application/json")
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, err := hc.Do(req)
			if err != nil {
				// The daemon may close the connection before the client
				// has sent everything: what it answered is what counts.
				t.Logf("send: %v", err)
			} else {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusRequestEntityTooLarge {
					t.Errorf("status %d, want 413", resp.StatusCode)
				}
			}
			runtime.ReadMemStats(&after)
			// Client and server share this process: the client streams
			// the body from a reader, so what is allocated is the server's.
			if got := after.TotalAlloc - before.TotalAlloc; got > tt.most {
				t.Errorf("the daemon allocated %d MB for a %d MB body, want at most %d MB", got>>20, size>>20, tt.most>>20)
			} else {
				t.Logf("allocated %d MB for a %d MB body", got>>20, size>>20)
			}
		})
	}
}

// zeros reads as an endless run of 'a'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestServer_StreamCap: one client holds at most maxStreamsPerClient event
// streams; the next is 429, and a stream is free again once one closes.
func TestServer_StreamCap(t *testing.T) {
	srv, _ := startServer(t, nil)
	hc := unixHTTP(srv.opts.Socket)
	open := func() *http.Response {
		t.Helper()
		resp, err := hc.Get("http://optimizer/v1/events")
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var held []*http.Response
	t.Cleanup(func() {
		for _, r := range held {
			r.Body.Close()
		}
	})
	for i := range maxStreamsPerClient {
		r := open()
		if r.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: status %d", i+1, r.StatusCode)
		}
		held = append(held, r)
	}
	over := open()
	over.Body.Close()
	if over.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stream %d: status %d, want 429", maxStreamsPerClient+1, over.StatusCode)
	}
	held[0].Body.Close()
	held = held[1:]
	deadline := time.Now().Add(time.Minute)
	for {
		r := open()
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's place is not given back: %d", r.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

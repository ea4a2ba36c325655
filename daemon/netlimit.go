package daemon

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Bounds of the HTTP servers. An open connection costs a file descriptor
// and a goroutine: a client that opens thousands and never finishes their
// headers must not take the daemon's descriptors, nor the socket's turn.
const (
	// maxConns bounds each listener's open connections; a connection past
	// it waits in the kernel's backlog until one closes.
	maxConns = 512
	// readHeaderTimeout closes a connection whose request headers have not
	// arrived in time.
	readHeaderTimeout = 10 * time.Second
	// readBodyTimeout bounds the reading of a request body (handlers set
	// it: a server-wide ReadTimeout would end event streams).
	readBodyTimeout = 2 * time.Minute
	// idleTimeout closes a kept-alive connection that sends nothing.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 64 << 10
)

// newHTTPServer is the server of one listener, with the bounds above.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnContext:       connContext,
	}
}

// limitListener accepts at most n connections at once: Accept waits until
// one of them closes.
type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func limitConns(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn gives its place back once, at its first Close.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

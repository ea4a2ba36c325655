package client

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// NewInProcess returns a client whose requests h serves in this process,
// with no socket between them. The daemon's MCP tools speak its API this
// way. h is the API's handler behind any listener's checks, which the
// caller has already passed. Responses stream, so event streams work.
func NewInProcess(h http.Handler) *Client {
	return &Client{base: "http://optimizer", http: &http.Client{Transport: handlerTransport{h}}}
}

// handlerTransport serves each request with h in a goroutine of its own,
// and answers as soon as h has written its header, with a body that
// streams the rest. Closing the body cancels the request's context.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	req = req.Clone(ctx)
	if req.Body == nil {
		req.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() { // owned by the response: it ends when h returns
		defer func() {
			w.WriteHeader(http.StatusOK) // a handler that wrote nothing
			pw.Close()
		}()
		t.h.ServeHTTP(w, req)
	}()
	select {
	case <-w.ready:
	case <-ctx.Done():
		cancel()
		pr.Close()
		return nil, ctx.Err()
	}
	return &http.Response{
		Status: http.StatusText(w.status), StatusCode: w.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.sent, Body: &cancelBody{ReadCloser: pr, cancel: cancel}, ContentLength: -1, Request: req,
	}, nil
}

// pipeWriter is the ResponseWriter of an in-process request: the header
// goes to the waiting RoundTrip, the body into a pipe.
type pipeWriter struct {
	header http.Header
	sent   http.Header // the header as WriteHeader froze it
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	status int
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	w.once.Do(func() {
		w.status = status
		w.sent = w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush does nothing: every Write reaches the reader at once.
func (w *pipeWriter) Flush() {}

// cancelBody cancels its request when closed, so that a handler waiting
// for events stops.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	b.cancel()
	return b.ReadCloser.Close()
}

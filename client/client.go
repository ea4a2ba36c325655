package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/api"
)

// SocketEnv names the environment variable that names the daemon's socket,
// for the daemon and every client alike. cmd reads it.
const SocketEnv = "OPTIMIZER_SOCKET"

// DefaultSocket is where the daemon listens unless told otherwise:
// $XDG_RUNTIME_DIR/optimizer/daemon.sock, or, without XDG_RUNTIME_DIR,
// a per-user directory under the temporary directory.
func DefaultSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "optimizer", "daemon.sock")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("optimizer-%d", os.Getuid()), "daemon.sock")
}

// Errors a caller can recognise.
var (
	// ErrNoDaemon: nothing answers on the socket.
	ErrNoDaemon = errors.New("no daemon answers")
)

// Client talks to one daemon. It is safe for concurrent use.
type Client struct {
	// Reconnect bounds how long Events and Follow keep trying a daemon
	// that went away; 0 is DefaultReconnect. Set it before use.
	Reconnect time.Duration

	base  string // http://optimizer or http://HOST:PORT
	token string
	http  *http.Client
	sock  string
}

// Dial returns a client of the daemon on the unix socket at path when one
// answers there (Available), else an error that wraps ErrNoDaemon and
// names path.
func Dial(ctx context.Context, path string) (*Client, error) {
	c := New(path)
	if !c.Available(ctx) {
		return nil, fmt.Errorf("%w on %s", ErrNoDaemon, path)
	}
	return c, nil
}

// New returns a client of the daemon on the unix socket at path.
func New(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			if err := api.CheckSocketDir(path); err != nil {
				return nil, err
			}
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		MaxIdleConnsPerHost: 8,
	}
	return &Client{base: "http://optimizer", http: &http.Client{Transport: tr}, sock: path}
}

// NewTCP returns a client of the daemon at addr (host:port) that sends token.
func NewTCP(addr, token string) *Client {
	return &Client{base: "http://" + addr, token: token, http: &http.Client{}}
}

// Available reports whether a daemon answers its health check within a
// short time. A socket file with nothing behind it is no daemon.
func (c *Client) Available(ctx context.Context) bool {
	if c.sock != "" {
		if _, err := os.Stat(c.sock); err != nil {
			return false
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.Health(ctx)
	return err == nil
}

// Health asks the daemon how it is.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	err := c.do(ctx, http.MethodGet, "/v1/health", nil, http.StatusOK, &h)
	return h, err
}

// Submit sends a job and returns its id once the daemon has recorded it.
func (c *Client) Submit(ctx context.Context, req api.JobRequest) (api.Submitted, error) {
	var s api.Submitted
	err := c.do(ctx, http.MethodPost, "/v1/jobs", req, http.StatusAccepted, &s)
	return s, err
}

// Job reads one job, with its report (partial while it runs).
func (c *Client) Job(ctx context.Context, id string) (api.Job, error) {
	var j api.Job
	err := c.do(ctx, http.MethodGet, "/v1/jobs/"+url.PathEscape(id), nil, http.StatusOK, &j)
	return j, err
}

// ListOptions filter GET /v1/jobs.
type ListOptions struct {
	Repo   string
	States []string
	Limit  int
	Before int64
}

// Jobs lists jobs, newest first.
func (c *Client) Jobs(ctx context.Context, o ListOptions) (api.JobList, error) {
	q := url.Values{}
	if o.Repo != "" {
		q.Set("repo", o.Repo)
	}
	if len(o.States) > 0 {
		q.Set("state", strings.Join(o.States, ","))
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Before > 0 {
		q.Set("before", strconv.FormatInt(o.Before, 10))
	}
	path := "/v1/jobs"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var l api.JobList
	err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK, &l)
	return l, err
}

// Report reads a job's report as text, markdown or json.
func (c *Client) Report(ctx context.Context, id, format string) ([]byte, error) {
	resp, err := c.send(ctx, http.MethodGet, "/v1/jobs/"+url.PathEscape(id)+"/report?format="+url.QueryEscape(format), nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, readError(resp)
	}
	return io.ReadAll(resp.Body)
}

// Cancel cancels a job: its processes are killed and its slots released.
func (c *Client) Cancel(ctx context.Context, id string) (api.Job, error) {
	var j api.Job
	err := c.do(ctx, http.MethodDelete, "/v1/jobs/"+url.PathEscape(id), nil, http.StatusOK, &j)
	return j, err
}

// DefaultReconnect is how long a client keeps trying a daemon that went
// away (killed, restarting) before it gives up. It is long enough for a
// restart under systemd and a daemon that re-opens its pools.
const DefaultReconnect = 10 * time.Minute

// maxStalls is how many streams in a row may end without an event while
// the daemon answers before Events gives up.
const maxStalls = 5

// reconnectBackoff bounds the pause between two tries of a daemon that went away.
const reconnectBackoff = 2 * time.Second

// A GoneError is returned when the daemon went away and did not answer
// again within the client's Reconnect limit. The job is in the daemon's
// queue: it runs when a daemon answers again.
type GoneError struct {
	Job   string
	Since time.Time // when the daemon stopped answering
	Err   error     // the last try's
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("the daemon went away and did not answer again for %v: %v", time.Since(e.Since).Round(time.Second), e.Err)
}

func (e *GoneError) Unwrap() error { return e.Err }

// A Notice says that the daemon went away (Gone, with the error that said
// so and how long the client keeps trying) or that it answers again.
type Notice struct {
	Gone  bool
	Err   error
	Limit time.Duration
}

// Events streams job id's events to fn, from the one after seq after (0:
// all the daemon still holds), until the job's EventEnded, fn's error, or
// ctx's end. A broken stream is resumed with Last-Event-ID; a daemon that
// went away is tried again, for up to c.Reconnect, and then the error is
// a *GoneError.
func (c *Client) Events(ctx context.Context, id string, after uint64, fn func(api.Event) error) error {
	return c.events(ctx, id, after, fn, nil)
}

// events is Events, telling notify (when set) when the daemon goes away
// and when it answers again.
func (c *Client) events(ctx context.Context, id string, after uint64, fn func(api.Event) error, notify func(Notice)) error {
	var gone time.Time // zero while the daemon answers
	tries, stalls := 0, 0
	for {
		last, ended, connected, err := c.stream(ctx, "/v1/jobs/"+url.PathEscape(id)+"/events", after, fn, func() {
			if !gone.IsZero() && notify != nil {
				notify(Notice{})
			}
			gone = time.Time{}
		})
		if ended || ctx.Err() != nil {
			return err
		}
		var apiErr *api.Error
		if errors.As(err, &apiErr) {
			return err
		}
		moved := last > after
		after = last
		if connected {
			if moved {
				tries, stalls = 0, 0
				continue // the stream broke, or this reader fell behind: resume at once
			}
			if stalls++; stalls > maxStalls {
				return fmt.Errorf("event stream of job %s: %w", id, err)
			}
			if err := sleep(ctx, time.Duration(stalls)*200*time.Millisecond); err != nil {
				return err
			}
			continue
		}
		if gone.IsZero() {
			gone = time.Now()
			if notify != nil {
				notify(Notice{Gone: true, Err: err, Limit: c.reconnect()})
			}
		}
		if time.Since(gone) > c.reconnect() {
			return &GoneError{Job: id, Since: gone, Err: err}
		}
		tries++
		if err := sleep(ctx, min(reconnectBackoff, time.Duration(tries)*100*time.Millisecond)); err != nil {
			return err
		}
	}
}

func (c *Client) reconnect() time.Duration {
	if c.Reconnect > 0 {
		return c.Reconnect
	}
	return DefaultReconnect
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// stream reads one SSE connection, calling answered once the daemon
// answers. It returns the last seq read, whether the stream is over for
// good (the job ended, or fn failed), and whether the daemon answered.
func (c *Client) stream(ctx context.Context, path string, after uint64, fn func(api.Event) error, answered func()) (last uint64, ended, connected bool, _ error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return after, true, false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(after, 10))
	}
	c.auth(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return after, false, false, c.dialError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return after, false, false, readError(resp)
	}
	answered()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && data.Len() > 0:
			var e api.Event
			if err := json.Unmarshal(data.Bytes(), &e); err != nil {
				return after, true, true, fmt.Errorf("event stream: %w", err)
			}
			data.Reset()
			after = e.Seq
			if err := fn(e); err != nil {
				return after, true, true, err
			}
			if e.Kind == api.EventEnded {
				return after, true, true, nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return after, false, true, err
	}
	return after, false, true, io.ErrUnexpectedEOF
}

func (c *Client) auth(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
}

func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil || (method != http.MethodGet && method != http.MethodHead) {
		// The daemon refuses a write without it, body or none: a page of
		// another origin cannot send it without the daemon's leave.
		req.Header.Set("Content-Type", "application/json")
	}
	c.auth(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.dialError(err)
	}
	return resp, nil
}

func (c *Client) dialError(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Errorf("%w: %w", ErrNoDaemon, err)
	}
	return err
}

func (c *Client) do(ctx context.Context, method, path string, body any, want int, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		return readError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s %s: %w", method, path, err)
	}
	return nil
}

func readError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e api.Error
	// A body that is no api.Error (a proxy's page, a panic) is its own message.
	if json.Unmarshal(b, &e) != nil || e.Message == "" {
		e.Message = strings.TrimSpace(string(b))
	}
	e.Status = resp.StatusCode
	return &e
}

// Socket returns the unix socket the client talks to; "" over TCP.
func (c *Client) Socket() string { return c.sock }

// Metrics reads /metrics, in the Prometheus text format.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	resp, err := c.send(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", readError(resp)
	}
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

package daemon

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/perm"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/mcp"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/store"
)

// Defaults for Options.
const (
	DefaultMaxJobs = 8
	// DefaultShutdownTimeout bounds how long Run waits, once its context
	// ends, for running jobs to stop and be recorded.
	DefaultShutdownTimeout = 2 * time.Minute
)

// Errors a caller can recognise.
var (
	// ErrSocketInUse: another daemon answers on the socket.
	ErrSocketInUse = errors.New("another daemon is listening on the socket")
	// ErrRemoteListen: a non-loopback TCP address without AllowRemote.
	ErrRemoteListen = errors.New("a TCP address that is not loopback needs --allow-remote")
)

// RunFunc evaluates one job; evaluator.Run is the real one.
type RunFunc func(ctx context.Context, pool evaluator.Pool, db *store.DB, opts evaluator.Options) (*evaluator.Report, error)

// RenderFunc writes a report in a format: text, markdown or json.
type RenderFunc func(w io.Writer, rep *evaluator.Report, format string) error

// Options configure a Server. Only cmd reads flags; it fills these.
type Options struct {
	Socket string // the unix socket; required
	// Listen, when set, is a TCP address (127.0.0.1:PORT) served besides
	// the socket; every request on it must carry Token.
	Listen      string
	AllowRemote bool
	// Token is the bearer token of Listen. "" with Listen reads it from
	// TokenFile, or makes one there (LoadToken).
	Token     string
	TokenFile string // "" is StateDir/token

	// StateDir is the daemon's directory: its store (the queue) and its
	// token. "" is DefaultStateDir's.
	StateDir   string
	StateDB    string // the daemon's own store; "" is StateDir/daemon.db
	Slots      int    // the machine-wide slot budget; 0 sizes it as machine.Slots does for auto
	CPUs       int    // the machine's CPUs, for the evaluator; 0 is NumCPU
	MaxJobs    int    // jobs run at once (they share Slots); 0 is DefaultMaxJobs
	DiskBudget int64  // bytes of idle warm pools; 0 is DefaultDiskBudget
	MaxBody    int64  // request body limit; 0 is DefaultMaxBody
	Paranoid   bool   // worktreepool.Options.Paranoid
	// Policy bounds what a job may ask for: the sandbox off, a setup
	// command, ignored files, environment variables. Its zero value allows
	// none of them.
	Policy Policy
	// MachineLock is the lock file that orders the daemon's slots against
	// optimizer processes outside it (worktreepool.Options.MachineLock); ""
	// is the default, the one the CLI uses.
	MachineLock string

	// MCPJobs makes what the MCP tools at /v1/mcp run and read jobs
	// with, from the API's handler in this process: a client of it
	// (client.NewInProcess). nil serves no MCP tools.
	MCPJobs func(api http.Handler) mcp.Jobs

	Run    RunFunc    // nil is evaluator.Run
	Render RenderFunc // renders ?format=; nil is report.Write
	// Other serves every path outside /v1/ and /metrics; nil serves the
	// dashboard (package dashboard, daemon/dashboard.go).
	Other http.Handler

	Logger *slog.Logger
	// Ready, when set, is called once the daemon can take jobs.
	Ready func()

	// sandboxErr says whether bwrap works here; nil is
	// proc.SandboxAvailable. Tests set it to play a machine without bwrap.
	sandboxErr func() error
}

// Server is the daemon: it owns the queue, the scheduler, the warm pools,
// the event broker and the HTTP API. Make one with New, then call Run.
type Server struct {
	opts   Options
	log    *slog.Logger
	db     *store.DB
	broker *Broker
	gate   *gate
	pools  *repoPools
	sched  *scheduler
	met    *metrics
	mux    *http.ServeMux

	streams streams // open event streams by client

	mu        sync.Mutex
	listeners []net.Listener
}

// AutoSlots is the slot budget of a daemon on m when none is given. It is
// what machine.Slots gives a job with no cap on its candidates and a test
// command other than go test. That is CPUs-1, at least 2 on two or more
// CPUs, lowered when free memory is short.
func AutoSlots(m machine.Info) int {
	n, _ := machine.Slots(machine.SlotsAuto, 1<<20, "any test command", m)
	return n
}

// New opens the daemon's store and checks its options. It listens on
// nothing yet: Run does.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Socket == "" {
		return nil, errors.New("no socket path")
	}
	if opts.Slots < 0 {
		return nil, errors.New("slot budget under 0")
	}
	if opts.Slots == 0 {
		opts.Slots = AutoSlots(machine.Read())
	}
	if opts.MaxJobs <= 0 {
		opts.MaxJobs = DefaultMaxJobs
	}
	if opts.DiskBudget <= 0 {
		opts.DiskBudget = DefaultDiskBudget
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Run == nil {
		opts.Run = evaluator.Run
	}
	if opts.Render == nil {
		opts.Render = report.Write
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.sandboxErr == nil {
		opts.sandboxErr = proc.SandboxAvailable
	}
	if err := opts.state(); err != nil {
		return nil, err
	}
	if opts.Listen != "" {
		if err := checkListen(opts.Listen, opts.AllowRemote); err != nil {
			return nil, err
		}
		if opts.Token == "" {
			return nil, errors.New("--listen needs a token")
		}
	}
	db, err := store.Open(ctx, opts.StateDB)
	if err != nil {
		return nil, fmt.Errorf("open daemon store: %w", err)
	}
	log := opts.Logger.With("component", "daemon")
	broker, err := newStoredBroker(ctx, db, uint64(time.Now().UnixMicro()), log)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open daemon store: %w", err)
	}
	s := &Server{
		opts:   opts,
		log:    log,
		db:     db,
		broker: broker,
		gate:   newGate(opts.Slots),
	}
	s.pools = newRepoPools(opts.Slots, opts.DiskBudget, opts.Paranoid, opts.MachineLock, opts.Logger.With("component", "pool"))
	s.sched = newScheduler(s)
	s.met = newMetrics(s)
	s.gate.waitHook = s.met.observeWait
	s.mux = s.routes()
	if err := s.mountDashboard(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// state finds the daemon's store in StateDir, and the token for Listen in
// TokenFile, made there when missing.
func (o *Options) state() error {
	if o.StateDB != "" && (o.Listen == "" || o.Token != "") {
		return nil
	}
	if o.StateDir == "" {
		dir, err := DefaultStateDir()
		if err != nil {
			return fmt.Errorf("find the state directory: %w", err)
		}
		o.StateDir = dir
	}
	// The queue holds every submitted candidate's code: the directory is
	// private, and tightened when it is not.
	if err := perm.PrivateDir(o.StateDir); err != nil {
		return fmt.Errorf("make the state directory %s: %w", o.StateDir, err)
	}
	if o.StateDB == "" {
		o.StateDB = filepath.Join(o.StateDir, "daemon.db")
	}
	if o.Listen != "" && o.Token == "" {
		o.TokenFile = cmp.Or(o.TokenFile, filepath.Join(o.StateDir, "token"))
		t, err := LoadToken(o.TokenFile)
		if err != nil {
			return err
		}
		o.Token = t
		o.Logger.Info("TCP needs the bearer token", "token_file", o.TokenFile)
	}
	return nil
}

// checkListen refuses a TCP address that is not loopback unless allowed.
func checkListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %s: %w", addr, ErrRemoteListen)
	}
	return nil
}

// Broker returns the server's event broker, for in-process subscribers
// such as the dashboard.
func (s *Server) Broker() *Broker { return s.broker }

// Handler is the whole API as the unix socket serves it: without a token,
// with the checks on origin, content type and event streams (guard). The
// TCP listener adds the Host and token checks.
func (s *Server) Handler() http.Handler { return s.guard(s.mux, nil) }

// Run listens, takes jobs and runs them until ctx ends. Then it stops
// accepting, cancels running jobs, records them to run again at the next
// start, keeps the warm pools for it, and returns nil.
func (s *Server) Run(ctx context.Context) error {
	defer s.db.Close()
	proc.KillOrphans() // what a killed daemon's jobs left running
	evaluator.RemoveStaleScratch(func(pid int) bool { return proc.Alive(pid, "") })
	requeued, err := s.db.RequeueRunning(ctx, "interrupted: the daemon that ran it stopped; run again")
	if err != nil {
		return err
	}
	if len(requeued) > 0 {
		s.log.Info("jobs interrupted by the last daemon are queued again", "jobs", requeued)
	}
	unix, err := listenUnix(s.opts.Socket)
	if err != nil {
		return err
	}
	defer os.Remove(s.opts.Socket)
	srvs := []*http.Server{newHTTPServer(s.Handler())}
	lns := []net.Listener{limitConns(unix, maxConns)}
	if s.opts.Listen != "" {
		tcp, err := net.Listen("tcp", s.opts.Listen)
		if err != nil {
			unix.Close()
			return fmt.Errorf("listen on %s: %w", s.opts.Listen, err)
		}
		srvs = append(srvs, newHTTPServer(s.guard(s.mux, listenHosts(s.opts.Listen, tcp))))
		lns = append(lns, limitConns(tcp, maxConns))
	}
	for _, srv := range srvs {
		srv.BaseContext = func(net.Listener) context.Context { return ctx }
	}
	s.mu.Lock()
	s.listeners = lns
	s.mu.Unlock()

	schedCtx, stopSched := context.WithCancel(context.WithoutCancel(ctx))
	schedDone := make(chan struct{})
	go func() { // owned by Run: stopped and waited for below
		defer close(schedDone)
		s.sched.run(schedCtx)
	}()
	var wg sync.WaitGroup
	for i, srv := range srvs {
		wg.Go(func() {
			if err := srv.Serve(lns[i]); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("serve", "addr", lns[i].Addr(), "err", err)
			}
		})
	}
	s.log.Info("ready", "socket", s.opts.Socket, "listen", s.opts.Listen, "slots", s.opts.Slots, "policy", s.opts.Policy.logValue())
	s.logDashboard(lns)
	if s.opts.Ready != nil {
		s.opts.Ready()
	}
	<-ctx.Done()
	s.log.Info("stopping: cancelling running jobs")
	sctx, cancel := context.WithTimeout(context.Background(), DefaultShutdownTimeout)
	defer cancel()
	for _, srv := range srvs {
		srv.Close() // SSE streams never end by themselves: close, not Shutdown
	}
	wg.Wait()
	stopSched()
	<-schedDone
	if err := s.pools.close(sctx); err != nil {
		s.log.Warn("keep pools", "err", err)
	}
	s.log.Info("stopped")
	return nil
}

// Addr returns the address of the TCP listener, once Run listens; nil without one.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.listeners) < 2 {
		return nil
	}
	return s.listeners[1].Addr()
}

// listenUnix listens on path with mode 0600. A socket that answers is
// another daemon: ErrSocketInUse. One that does not is a killed daemon's,
// and is taken over.
func listenUnix(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("make socket directory: %w", err)
	}
	if err := api.CheckSocketDir(path); err != nil {
		return nil, err
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w (stop it first, or pass --socket)", path, ErrSocketInUse)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket: remove it, or pass --socket", path)
		}
		os.Remove(path) // stale: its daemon is gone
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// NewToken returns a random bearer token.
func NewToken() string {
	var b [24]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// DefaultStateDir is the daemon's state directory (its queue, its token)
// unless told otherwise: $XDG_STATE_HOME/optimizer, else
// ~/.local/state/optimizer. It fails only without a home directory.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "optimizer"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "optimizer"), nil
}

// LoadToken reads the token at path, or makes one there (mode 0600) when
// the file does not exist.
func LoadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("token file %s is empty", path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read token: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("make token directory: %w", err)
	}
	t := NewToken()
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return t, nil
}

// logDashboard says where the dashboard is. On TCP, it gives the address a
// browser opens and how to pass the token once, never the token itself.
// With the socket only, it says how to reach it and open it to a browser.
func (s *Server) logDashboard(lns []net.Listener) {
	if len(lns) < 2 {
		s.log.Info("dashboard on the socket only", "try", "curl --unix-socket "+s.opts.Socket+" http://optimizer/",
			"browser", "start the daemon with --listen 127.0.0.1:7070")
		return
	}
	url := "http://" + lns[1].Addr().String() + "/"
	login := url + "?token=TOKEN, once (it sets a cookie)"
	if s.opts.TokenFile != "" {
		login = url + "?token=$(cat " + s.opts.TokenFile + "), once (it sets a cookie)"
	}
	s.log.Info("dashboard", "url", url, "login", login)
}

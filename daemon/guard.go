package daemon

import (
	"context"
	"crypto/subtle"
	"fmt"
	"html"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// What a listener lets through before the API sees a request, in this
// order:
//   - on TCP, a Host that names the listener (a DNS-rebound name does not);
//   - on TCP, the token;
//   - no cross-origin write (http.CrossOriginProtection);
//   - a JSON content type on every write (a form or a no-cors fetch cannot
//     send one);
//   - no cross-site read of the API;
//   - a bound on each client's event streams.

// maxStreamsPerClient bounds the event streams one client holds at once:
// one TCP address, or one process on the socket.
const maxStreamsPerClient = 64

// guard wraps h with the checks of one listener: hosts, when not nil, are
// the Host values a request may carry, and the token is checked (TCP).
func (s *Server) guard(h http.Handler, hosts map[string]bool) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.refuse(w, r, &requestError{status: http.StatusForbidden, field: "Origin",
			msg: "a cross-origin request may not change anything: send it from the daemon's own origin, or without a browser"})
	}))
	inner := s.streamCap(cop.Handler(s.requireJSON(s.sameOriginReads(h))))
	if hosts == nil {
		return inner
	}
	return s.checkHost(hosts, s.withToken(inner))
}

// refuse answers a request the guard stops, and logs it: the log is
// where the person who runs the daemon sees that a page tried.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, e *requestError) {
	s.log.Info("refused a request", "method", r.Method, "path", r.URL.Path, "status", e.status, "field", e.field,
		"origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"), "host", r.Host)
	writeError(w, e)
}

// checkHost refuses a request whose Host is not one the daemon listens on:
// a page on a DNS name rebound to 127.0.0.1 carries its own name.
func (s *Server) checkHost(hosts map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[normHost(r.Host)] {
			s.refuse(w, r, &requestError{status: http.StatusForbidden, field: "Host",
				msg: fmt.Sprintf("Host %q is not an address this daemon listens on: use the address given to --listen", r.Host)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// normHost is host:port in lower case, with port 80 when Host has none.
func normHost(h string) string {
	h = strings.ToLower(h)
	if _, _, err := net.SplitHostPort(h); err != nil {
		h = net.JoinHostPort(strings.Trim(h, "[]"), "80")
	}
	return h
}

// listenHosts is every Host a request to the TCP listener ln, started as
// --listen given, may carry. That is the address it is bound to, the name
// given, and localhost for a loopback address. A listener on every address
// (0.0.0.0, with --allow-remote) takes any IP address and this machine's
// name.
func listenHosts(given string, ln net.Listener) map[string]bool {
	hosts := map[string]bool{}
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return hosts
	}
	port := strconv.Itoa(addr.Port)
	add := func(h string) { hosts[normHost(net.JoinHostPort(h, port))] = true }
	add(addr.IP.String())
	if h, _, err := net.SplitHostPort(given); err == nil && h != "" {
		add(h)
	}
	if addr.IP.IsLoopback() || addr.IP.IsUnspecified() {
		add("localhost")
		add("127.0.0.1")
		add("::1")
	}
	if addr.IP.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			add(name)
		}
		if ifs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range ifs {
				if n, ok := a.(*net.IPNet); ok {
					add(n.IP.String())
				}
			}
		}
	}
	return hosts
}

// safeMethod reports whether a request with method m changes nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// requireJSON refuses a write without Content-Type: application/json. A
// browser sends that type across origins only after a CORS preflight,
// which the daemon never grants; a form, or a no-cors fetch of a Blob,
// sends another or none.
func (s *Server) requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !safeMethod(r.Method) {
			ct := r.Header.Get("Content-Type")
			if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
				s.refuse(w, r, &requestError{status: http.StatusUnsupportedMediaType, field: "Content-Type",
					msg: fmt.Sprintf("%s needs Content-Type: application/json (got %q), even without a body", r.Method, ct)})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// sameOriginReads refuses a read of the API, the metrics or an event
// stream that a page of another origin makes (Sec-Fetch-Site same-site or
// cross-site, other than a navigation). Such a page may not read a report
// even by a no-cors fetch or a script tag. Pages of the dashboard may be
// opened from anywhere.
func (s *Server) sameOriginReads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := r.Header.Get("Sec-Fetch-Site")
		data := strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/metrics" || strings.HasSuffix(r.URL.Path, "/events")
		if data && (site == "cross-site" || site == "same-site") && r.Header.Get("Sec-Fetch-Mode") != "navigate" {
			s.refuse(w, r, &requestError{status: http.StatusForbidden, field: "Sec-Fetch-Site",
				msg: "a page of another origin may not read the daemon's data"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clientKey is the context key of a connection's client: "tcp IP" or
// "pid N" (the peer process on the socket).
type clientKey struct{}

// connContext records the client of a connection, for streamCap.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		c = lc.Conn
	}
	key := "unknown"
	switch c := c.(type) {
	case *net.TCPConn:
		if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			key = "tcp " + a.IP.String()
		}
	case *net.UnixConn:
		if raw, err := c.SyscallConn(); err == nil {
			raw.Control(func(fd uintptr) {
				if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
					key = "pid " + strconv.Itoa(int(cred.Pid))
				}
			})
		}
	}
	return context.WithValue(ctx, clientKey{}, key)
}

// streams counts each client's open event streams.
type streams struct {
	mu sync.Mutex
	n  map[string]int
}

// streamCap refuses an event stream beyond maxStreamsPerClient of its
// client's: each holds a connection and a broker subscription for as long
// as the client likes.
func (s *Server) streamCap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/events") {
			next.ServeHTTP(w, r)
			return
		}
		key, _ := r.Context().Value(clientKey{}).(string)
		st := &s.streams
		st.mu.Lock()
		if st.n == nil {
			st.n = map[string]int{}
		}
		if st.n[key] >= maxStreamsPerClient {
			st.mu.Unlock()
			writeError(w, &requestError{status: http.StatusTooManyRequests,
				msg: fmt.Sprintf("this client has %d event streams open, the most it may: close one first", maxStreamsPerClient)})
			return
		}
		st.n[key]++
		st.mu.Unlock()
		defer func() {
			st.mu.Lock()
			if st.n[key]--; st.n[key] == 0 {
				delete(st.n, key)
			}
			st.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// TokenCookie is the cookie a browser may carry the token in: a request
// with ?token=TOKEN sets it.
const TokenCookie = "optimizer_token"

// withToken lets through only requests that carry the token. The token
// comes as "Authorization: Bearer TOKEN", in the TokenCookie cookie, or as
// ?token=. The ?token= form sets the cookie, and for a GET it redirects to
// the same URL without the token. So the token stays out of the history and
// of Referer headers.
func (s *Server) withToken(next http.Handler) http.Handler {
	want := []byte(s.opts.Token)
	ok := func(got string) bool { return got != "" && subtle.ConstantTimeCompare([]byte(got), want) == 1 }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		query := r.URL.Query().Get("token")
		switch {
		case strings.HasPrefix(auth, "Bearer ") && ok(strings.TrimPrefix(auth, "Bearer ")):
		case cookieOK(r, ok):
		case ok(query):
			http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, withoutToken(r.URL), http.StatusSeeOther)
				return
			}
		case auth == "" && query == "":
			w.Header().Set("WWW-Authenticate", `Bearer realm="optimizer"`)
			s.tokenError(w, r, "missing token: send Authorization: Bearer TOKEN (the daemon's token file)")
			return
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="optimizer", error="invalid_token"`)
			s.tokenError(w, r, "wrong token: send the one in the daemon's token file")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withoutToken is u's path and query without its token parameter.
func withoutToken(u *url.URL) string {
	q := u.Query()
	q.Del("token")
	out := url.URL{Path: u.Path, RawQuery: q.Encode()}
	if out.Path == "" {
		out.Path = "/"
	}
	return out.String()
}

// tokenError is the 401 answer: JSON for a program, a page that says what
// to do for a browser that navigated here.
func (s *Server) tokenError(w http.ResponseWriter, r *http.Request, msg string) {
	if r.Header.Get("Sec-Fetch-Mode") != "navigate" && !strings.Contains(r.Header.Get("Accept"), "text/html") {
		writeError(w, &requestError{status: http.StatusUnauthorized, field: "Authorization", msg: msg})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintf(w, tokenPage, html.EscapeString(r.Host))
}

// tokenPage is the page a browser gets without the right token; %[1]s is
// the daemon's address.
const tokenPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>optimizer: the token is needed</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .2em}</style></head>
<body><main class="error token">
<h1>401: the daemon's token is needed</h1>
<p>This optimizer daemon lets in only those who have its token, and this browser did not send the right one.</p>
<p>Open <code>http://%[1]s/?token=TOKEN</code> once, with the token from the daemon's token file
(<code>--token-file</code>; by default <code>~/.local/state/optimizer/token</code> on the daemon's machine).
It sets a cookie that carries the token for the rest of the visit.</p>
</main></body></html>
`

func cookieOK(r *http.Request, ok func(string) bool) bool {
	c, err := r.Cookie(TokenCookie)
	return err == nil && ok(c.Value)
}

package dashboard

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// DefaultHeartbeat is how often the event stream writes a comment when
// nothing happens, so that proxies and browsers keep it open.
const DefaultHeartbeat = 15 * time.Second

// A Handler serves the dashboard's pages, its assets and its event stream.
// It is safe for concurrent use. It holds nothing between requests: every
// page is rendered from the Source.
type Handler struct {
	src       Source
	mux       *http.ServeMux
	pages     map[string]*template.Template
	logger    *slog.Logger
	heartbeat time.Duration
}

// Options configure a Handler.
type Options struct {
	// Logger gets request errors; nil discards them.
	Logger *slog.Logger
	// Heartbeat is the event stream's keep-alive interval; 0 is
	// DefaultHeartbeat, a negative value turns it off.
	Heartbeat time.Duration
}

// New returns a Handler that reads from src.
func New(src Source, opts Options) (*Handler, error) {
	h := &Handler{src: src, logger: opts.Logger, heartbeat: opts.Heartbeat}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if h.heartbeat == 0 {
		h.heartbeat = DefaultHeartbeat
	}
	var err error
	if h.pages, err = parsePages(); err != nil {
		return nil, err
	}
	assets, err := fs.Sub(assetFS, "assets")
	if err != nil {
		return nil, fmt.Errorf("embedded assets: %w", err)
	}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.jobsPage)
	h.mux.HandleFunc("GET /jobs/{id}", h.jobPage)
	h.mux.HandleFunc("GET /repo", h.repoPage)
	h.mux.HandleFunc("GET /events", h.events)
	h.mux.Handle("GET /assets/", http.StripPrefix("/assets/", cacheAssets(http.FileServerFS(assets))))
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.notFound(w, r, fmt.Sprintf("There is no page at %s.", r.URL.Path))
	})
	return h, nil
}

// ServeHTTP serves the dashboard; mount it at "/".
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// parsePages parses each page template with the layout it shares.
func parsePages() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range []string{"jobs", "job", "repo", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// page is what the layout needs from every page.
type page struct {
	Title string
	Job   string // the job a live page follows, "" for every job
	Body  any
}

// render writes a page, or a 500 if it cannot be rendered: it renders to a
// buffer first, so that a half-written page is never sent.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p page) {
	var buf bytes.Buffer
	if err := h.pages[name].Execute(&buf, p); err != nil {
		h.logger.Error("render page", "page", name, "err", err)
		http.Error(w, "the dashboard could not render this page; the daemon's log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", csp)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// csp forbids the pages anything from another origin, and inline scripts.
const csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"

// notFound writes the 404 page.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, msg string) {
	h.render(w, http.StatusNotFound, "error", page{Title: "not found", Body: errorView{Status: http.StatusNotFound, Message: msg}})
}

// serverError writes the 500 page, and logs err.
func (h *Handler) serverError(w http.ResponseWriter, r *http.Request, err error) {
	h.logger.Error("dashboard request", "path", r.URL.Path, "err", err)
	h.render(w, http.StatusInternalServerError, "error", page{Title: "error", Body: errorView{
		Status: http.StatusInternalServerError, Message: "The dashboard could not read what this page shows: " + err.Error(),
	}})
}

type errorView struct {
	Status  int
	Message string
}

// cacheAssets lets browsers keep the embedded assets for an hour.
func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// requestContext bounds one page's reads.
func requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 30*time.Second)
}

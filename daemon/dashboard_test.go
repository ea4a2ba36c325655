package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// unixHTTP is an HTTP client that dials the daemon's unix socket.
func unixHTTP(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
}

// fetch GETs url with c and returns the status, the body and the answer.
func fetch(tb testing.TB, c *http.Client, url string) (int, string, *http.Response) {
	tb.Helper()
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(b), resp
}

func TestDashboard_ServedAtRoot(t *testing.T) {
	repo := shellRepo(t)
	before := testenv.RepoState(t, repo)
	srv, c := startServer(t, func(o *Options) { o.Listen, o.Token = "127.0.0.1:0", "s3cret" })
	sub, err := c.Submit(context.Background(), api.JobRequest{
		Repo: repo,
		Candidates: []json.RawMessage{
			inline(t, "good", map[string]string{"lib.txt": "two\n"}),
			inline(t, "<script>window.pwned=1</script>", map[string]string{"ok": "no\n"}),
		},
		Options: jobspec.Spec{Test: shellTest, Bench: "none"},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitEnded(t, c, sub.ID)

	t.Run("UnixSocket", func(t *testing.T) {
		hc := unixHTTP(srv.opts.Socket)
		for _, tt := range []struct {
			name, path string
			status     int
			want       []string
		}{
			{"JobsPage", "/", http.StatusOK, []string{`data-job="` + sub.ID + `"`, "finished", repo}},
			{"JobPage", "/jobs/" + sub.ID, http.StatusOK, []string{
				`<td class="name">good</td><td class="verdict">passed</td>`,
				`<td class="name">&lt;script&gt;window.pwned=1&lt;/script&gt;</td><td class="verdict">failed (test)</td>`,
				`<span class="add">&#43;no</span>`, // the failed candidate's change, its whole file added
			}},
			{"RepoPage", "/repo?path=" + repo, http.StatusOK, []string{"From its latest 1 jobs."}},
			{"UnknownJob", "/jobs/d-no-such-job", http.StatusNotFound, []string{"There is no job"}},
			{"APIStillThere", "/v1/jobs/" + sub.ID, http.StatusOK, []string{`"run_id"`}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				status, body, _ := fetch(t, hc, "http://daemon"+tt.path)
				if status != tt.status {
					t.Fatalf("GET %s: %d, want %d\n%s", tt.path, status, tt.status, body)
				}
				for _, w := range tt.want {
					if !strings.Contains(body, w) {
						t.Errorf("GET %s lacks %q", tt.path, w)
					}
				}
				if strings.Contains(body, "<script>window.pwned") {
					t.Errorf("GET %s: a candidate's name is not escaped", tt.path)
				}
			})
		}
	})
	t.Run("TCPToken", func(t *testing.T) {
		base := "http://" + srv.Addr().String()
		if status, _, _ := fetch(t, http.DefaultClient, base+"/"); status != http.StatusUnauthorized {
			t.Errorf("GET / without the token: %d, want 401", status)
		}
		if status, _, _ := fetch(t, http.DefaultClient, base+"/?token=wrong"); status != http.StatusUnauthorized {
			t.Errorf("GET / with a wrong token: %d, want 401", status)
		}
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		if status, body, _ := fetch(t, browser, base+"/?token=s3cret"); status != http.StatusOK || !strings.Contains(body, sub.ID) {
			t.Fatalf("GET /?token=: %d", status)
		}
		// The cookie the first visit set lets the page's links and its
		// event stream through.
		if status, _, _ := fetch(t, browser, base+"/jobs/"+sub.ID); status != http.StatusOK {
			t.Errorf("GET the job page with the cookie: %d, want 200", status)
		}
	})
	if after := testenv.RepoState(t, repo); after != before {
		t.Errorf("the daemon changed the user's repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

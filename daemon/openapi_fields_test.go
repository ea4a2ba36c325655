package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// undocumented returns the paths of v's object keys that schema s does not
// list: a field the daemon sends that openapi.json leaves out. A schema
// whose additionalProperties is a schema is a map: its keys are data.
func undocumented(path string, s *openapi3.Schema, v any) []string {
	if s == nil {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if ap := s.AdditionalProperties.Schema; ap != nil {
			for k, e := range v {
				out = append(out, undocumented(path+"["+k+"]", ap.Value, e)...)
			}
			return out
		}
		props := properties(s)
		for k, e := range v {
			p, ok := props[k]
			if !ok {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, undocumented(path+"."+k, p, e)...)
		}
	case []any:
		if s.Items == nil {
			for _, sub := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
				if sub.Value.Items != nil {
					s = sub.Value
				}
			}
		}
		if s.Items != nil {
			for i, e := range v {
				out = append(out, undocumented(fmt.Sprintf("%s[%d]", path, i), s.Items.Value, e)...)
			}
		}
	}
	return out
}

// properties are the properties of s and of the schemas it combines.
func properties(s *openapi3.Schema) map[string]*openapi3.Schema {
	props := map[string]*openapi3.Schema{}
	for k, p := range s.Properties {
		props[k] = p.Value
	}
	for _, sub := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		for k, p := range properties(sub.Value) {
			props[k] = p
		}
	}
	return props
}

// fieldChecker checks real answers for fields openapi.json leaves out.
type fieldChecker struct {
	t       *testing.T
	doc     *openapi3.T
	hc      *http.Client
	missing map[string]bool
}

func (f *fieldChecker) schema(name string) *openapi3.Schema {
	s := f.doc.Components.Schemas[name]
	if s == nil {
		f.t.Fatalf("openapi.json has no schema %s", name)
	}
	return s.Value
}

// check adds the fields of body that schema leaves out.
func (f *fieldChecker) check(what, schema string, body []byte) {
	f.t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		f.t.Fatalf("%s: %v\n%s", what, err, body)
	}
	for _, p := range undocumented(schema, f.schema(schema), v) {
		f.missing[p+" (in "+what+")"] = true
	}
}

// get GETs path and checks its JSON body against schema.
func (f *fieldChecker) get(path, schema string) []byte {
	f.t.Helper()
	resp, err := f.hc.Get("http://optimizer" + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	f.check("GET "+path, schema, body)
	return body
}

// events reads an SSE stream to its end and checks each event's data.
func (f *fieldChecker) events(path string) int {
	f.t.Helper()
	resp, err := f.hc.Get("http://optimizer" + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	n := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			f.check("GET "+path, "Event", []byte(data))
			n++
			if strings.Contains(data, `"kind":"ended"`) {
				break
			}
		}
	}
	return n
}

// TestOpenAPI_EveryFieldSent runs a real job on a real daemon, with a
// winner, a failure, a benchmark and a profile. It walks every answer for a
// field openapi.json does not list: submit, job while it runs and once it
// ended, list, report, events, health, errors.
func TestOpenAPI_EveryFieldSent(t *testing.T) {
	// fast sleeps 0.3 s less than base: a winner even on a busy machine,
	// whose noise was 0.1 s a sample at a load of 18 on 2 CPUs.
	repo := newTestRepo(t, map[string]string{"ok": "yes\n", "speed": "0.3\n",
		"bench.sh": "sleep $(cat speed)\n", "prof.sh": "echo profiled > prof.txt\n"})
	_, c := startServer(t, func(o *Options) { o.Policy.AllowUnsandboxed = true })
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	f := &fieldChecker{t: t, doc: doc, hc: unixHTTP(c.Socket()), missing: map[string]bool{}}
	req := api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{
			inline(t, "fast", map[string]string{"speed": "0.001\n"}),
			inline(t, "broken", map[string]string{"ok": "no\n"}),
			inline(t, "same", map[string]string{"prof.sh": "echo same > prof.txt\n"}),
		},
		Options: jobspec.Spec{Test: shellTest, Bench: "sh bench.sh", ProfileCmd: "sh prof.sh", MaxPairs: 10,
			NoPin: true, Sandbox: "off", Timeout: jobspec.Duration(2 * time.Minute), Env: map[string]string{"PATH": "/usr/bin:/bin"}}}
	b, _ := json.Marshal(req)
	resp, err := f.hc.Post("http://optimizer/v1/jobs", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	f.check("POST /v1/jobs", "Submitted", body)
	var sub api.Submitted
	json.Unmarshal(body, &sub)

	// While it runs: the job with its live report, at a sample.
	ctx, cancel := context.WithCancel(context.Background())
	sawRunning := false
	c.Events(ctx, sub.ID, 0, func(e api.Event) error {
		if e.Kind == "sample" {
			f.get("/v1/jobs/"+sub.ID, "Job")
			f.get("/v1/jobs?state=running", "JobList")
			sawRunning = true
			cancel()
		}
		return nil
	})
	cancel()
	if !sawRunning {
		t.Fatal("the job ended before its first benchmark pair")
	}
	waitEnded(t, c, sub.ID)
	var j api.Job
	json.Unmarshal(f.get("/v1/jobs/"+sub.ID, "Job"), &j)
	if j.State != "finished" || j.Report == nil || j.Report.Winner == nil {
		t.Fatalf("the job ended %s with no winner: want one, so that every part of the report is sent", j.State)
	}
	f.get("/v1/jobs?limit=5", "JobList")
	f.get("/v1/jobs/"+sub.ID+"/report?format=json", "Report")
	f.get("/v1/health", "Health")
	f.get("/v1/jobs/nope", "Error")
	if n := f.events("/v1/jobs/" + sub.ID + "/events"); n < 10 {
		t.Errorf("the job's stream had %d events", n)
	}
	f.events("/v1/events?after=1")

	missing := slices.Collect(func(yield func(string) bool) {
		for p := range f.missing {
			if !yield(p) {
				return
			}
		}
	})
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("openapi.json leaves out %d fields the daemon sends:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
)

// specRouter loads the embedded OpenAPI document, checks it is valid, and
// returns a router over it.
func specRouter(tb testing.TB) routers.Router {
	tb.Helper()
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.PlainBodyDecoder)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(OpenAPI)
	if err != nil {
		tb.Fatalf("load openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		tb.Fatalf("openapi.json is not valid OpenAPI: %v", err)
	}
	r, err := legacy.NewRouter(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// checkResponse checks a real response against the OpenAPI document: its
// route, status, content type and body schema. The body is left readable.
func checkResponse(tb testing.TB, router routers.Router, req *http.Request, resp *http.Response) []byte {
	tb.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	// The router matches on the document's server URL.
	u := *req.URL
	u.Scheme, u.Host = "http", "optimizer"
	r2 := req.Clone(context.Background())
	r2.URL = &u
	route, params, err := router.FindRoute(r2)
	if err != nil {
		tb.Errorf("%s %s: no route in openapi.json: %v", req.Method, req.URL.Path, err)
		return body
	}
	in := &openapi3filter.RequestValidationInput{Request: r2, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		tb.Errorf("%s %s -> %d does not match openapi.json: %v\n%s", req.Method, req.URL, resp.StatusCode, err, body)
	}
	return body
}

func TestOpenAPI_Valid(t *testing.T) {
	specRouter(t)
}

// TestOpenAPI_Event: an event with every field the API carries, a stuck
// test's and an ETA's included, is valid against openapi.json's Event.
func TestOpenAPI_Event(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas["Event"].Value
	at := time.Date(2026, 11, 26, 17, 0, 0, 0, time.UTC)
	for _, e := range []evaluator.Event{
		{Kind: evaluator.EventJobStart, Time: at, Total: 3, Message: "job1", History: []evaluator.PastBenchmark{{Candidate: "a", Pairs: 8}, {Candidate: "b", Pairs: 30}}, Slots: 2},
		{Kind: evaluator.EventSample, Time: at, Candidate: "fast", Total: 3, BaseSample: time.Millisecond, Forecast: 9},
		{Kind: evaluator.EventStuck, Time: at, Candidate: "hang", Message: "pkg.TestX", Since: at, AtBase: time.Millisecond},
	} {
		data, err := json.Marshal(api.FromEvaluator("job1", e))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.VisitJSON(v); err != nil {
			t.Errorf("%s event %s does not match openapi.json's Event: %v", e.Kind, data, err)
		}
	}
}

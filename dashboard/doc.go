// Package dashboard is the daemon's web dashboard: an http.Handler that
// renders jobs, their evidence and a repository's history as HTML pages.
//
// What flows through it: a Source (the daemon, or anything holding a store)
// gives the job list and each job's report. It also gives its benchmark
// samples, the candidates' diffs, and a stream of events. The handler turns
// them into server-rendered pages whose tables read with JavaScript off.
// Their plots are inline SVG drawn on the server (see docs/dashboard.md for
// why). One small embedded script listens to the dashboard's own SSE
// endpoint, /events. It refetches the page's <main> when something changed,
// so a page stays live without a reload.
//
// Every asset is embedded: a page fetches nothing from another host.
package dashboard

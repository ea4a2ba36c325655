// live.js: keeps a dashboard page current without a reload. It listens to
// the dashboard's event stream and, when something happened to the job the
// page shows (or to any job, on the jobs page), fetches the page again and
// swaps in its <main>, keeping open <details> open. Tables and plots are
// rendered on the server; with JavaScript off the page is only not live.
(function () {
  "use strict";
  var job = document.body.getAttribute("data-job");
  var status = document.getElementById("live-status");
  var timer = null, busy = false, again = false;

  function say(s) { if (status) status.textContent = s; }

  function refresh() {
    timer = null;
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var next = doc.querySelector("main"), cur = document.querySelector("main");
        if (!next || !cur) return;
        var open = {};
        cur.querySelectorAll("details[id]").forEach(function (d) { open[d.id] = d.open; });
        next.querySelectorAll("details[id]").forEach(function (d) {
          if (d.id in open) d.open = open[d.id];
        });
        cur.replaceWith(document.importNode(next, true));
        document.body.setAttribute("data-updated", String(Date.now()));
      })
      .catch(function (e) { say("update failed (" + e + ")"); })
      .then(function () {
        busy = false;
        if (again) { again = false; schedule(); }
      });
  }

  function schedule() {
    if (!timer) timer = setTimeout(refresh, 300);
  }

  if (!window.EventSource) return;
  var es = new EventSource("/events");
  es.onopen = function () { say("live"); };
  es.onerror = function () { say("reconnecting…"); };
  es.onmessage = function (m) {
    var e;
    try { e = JSON.parse(m.data); } catch (err) { return; }
    if (job && e.job !== job) return;
    schedule();
  };
})();

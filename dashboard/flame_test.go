package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/optimizer-dev/optimizer/internal/browser"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// evilFrame is a function name that would run as a script if the page did
// not escape it.
const evilFrame = `m.<script>window.pwned=1</script>`

// flameSummary is the profile of a winner that stopped calling expensive:
// base's stacks and the winner's, merged as profiler.Summarize merges them.
func flameSummary() *profiler.Summary {
	fr := func(depth int, name string, tb, tc, sb, sc float64) profiler.FlameFrame {
		return profiler.FlameFrame{Func: name, Depth: depth, Total: profiler.Share{Base: tb, Cand: tc}, Self: profiler.Share{Base: sb, Cand: sc}}
	}
	return &profiler.Summary{Candidate: "inline", SampleType: "cpu", Samples: profiler.Counts{Base: 1000, Cand: 600},
		Top: []profiler.FuncRow{{Func: "m.Slow", File: "calc.go", Line: 3, Flat: profiler.Share{Base: 25, Cand: 83.33}, Changed: true}},
		Flame: []profiler.FlameFrame{
			fr(0, profiler.FlameRoot, 100, 100, 0, 0),
			fr(1, "runtime.goexit", 100, 100, 0, 0),
			fr(2, "runtime.gcBgMarkWorker", 10, 8.33, 10, 8.33),
			fr(2, "testing.(*B).runN", 90, 91.67, 0, 0),
			fr(3, "m.BenchmarkSlow", 90, 91.67, 0, 0),
			fr(4, "m.Slow", 85, 83.33, 25, 83.33),
			fr(5, "m.expensive", 50, 0, 50, 0),
			fr(5, "runtime.mallocgc", 10, 0, 10, 0),
			fr(4, "sub.(*T).Get", 5, 8.33, 5, 0),
			fr(5, evilFrame, 0, 0.3, 0, 0.3),
			fr(5, "sort.insertionSort", 0, 8.03, 0, 8.03),
		},
		Changes: []profiler.FrameChange{{Func: "m.Slow", Self: profiler.Share{Base: 25, Cand: 83.33}},
			{Func: "m.expensive", Self: profiler.Share{Base: 50}}, {Func: "runtime.mallocgc", Self: profiler.Share{Base: 10}}},
	}
}

// flameJob records a finished job whose winner has flameSummary's profile.
func flameJob(tb testing.TB, db *store.DB, src *storeSource, id string) {
	tb.Helper()
	winner := measured("inline", result.VerdictWinner, 3, 2.8, 3.2, 8)
	rep := seedJob(tb, db, src, id, "/src/flame", time.Now().Add(-time.Minute), []fixtureCandidate{{res: winner, ratio: 1.0 / 3, pairs: 8}})
	rep.Profile = flameSummary()
	b, err := json.Marshal(rep)
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.FinishJob(context.Background(), id, "finished", "inline", b, ""); err != nil {
		tb.Fatal(err)
	}
}

var flameBoxRE = regexp.MustCompile(`<g class="(more|less|same)"><title>([^\n<]*)\n[^<]*</title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="[\d.]+" fill="rgb\((\d+),(\d+),(\d+)\)"/>`)

func TestHandler_Flame(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	flameJob(t, db, src, "job-flame")
	url := newTestServer(t, src)
	status, body := get(t, url+"/jobs/job-flame")
	if status != http.StatusOK {
		t.Fatalf("status %d, body:\n%s", status, body)
	}
	svg := section(t, body, `<svg class="flame"`, `</svg>`)
	type box struct {
		class   string
		x, w    float64
		r, g, b int
	}
	boxes := map[string]box{}
	for _, m := range flameBoxRE.FindAllStringSubmatch(svg, -1) {
		f := func(i int) float64 { x, _ := strconv.ParseFloat(m[i], 64); return x }
		boxes[m[2]] = box{class: m[1], x: f(3), w: f(5), r: int(f(6)), g: int(f(7)), b: int(f(8))}
	}
	if len(boxes) != len(flameSummary().Flame) {
		t.Fatalf("%d boxes drawn, want one per frame (%d):\n%s", len(boxes), len(flameSummary().Flame), svg)
	}
	for _, tt := range []struct {
		fn, class string
		width     float64 // the average share of both sides, of 1000 units, less the gap
	}{
		{profiler.FlameRoot, "same", 999},
		{"m.Slow", "more", 1000*(85+83.33)/200 - 1},
		{"m.expensive", "less", 249},
		{"sub.(*T).Get", "less", 1000*(5+8.33)/200 - 1},
		{"sort.insertionSort", "more", 1000*8.03/200 - 1},
	} {
		b := boxes[tt.fn]
		if b.class != tt.class {
			t.Errorf("%s is %q, want %q", tt.fn, b.class, tt.class)
		}
		if d := b.w - tt.width; d < -0.06 || d > 0.06 {
			t.Errorf("%s is %.1f wide, want %.1f", tt.fn, b.w, tt.width)
		}
		switch tt.class {
		case "more":
			if b.r <= b.b {
				t.Errorf("%s is more, but its colour rgb(%d,%d,%d) is not red", tt.fn, b.r, b.g, b.b)
			}
		case "less":
			if b.b <= b.r {
				t.Errorf("%s is less, but its colour rgb(%d,%d,%d) is not blue", tt.fn, b.r, b.g, b.b)
			}
		}
	}
	// m.expensive, the largest drop, is the deepest blue; children start
	// where their parent does, in name order.
	if e, m := boxes["m.expensive"], boxes["runtime.mallocgc"]; e.r >= m.r || e.x != boxes["m.Slow"].x || m.x <= e.x {
		t.Errorf("m.expensive rgb(%d,…) at %.1f, runtime.mallocgc rgb(%d,…) at %.1f, m.Slow at %.1f", e.r, e.x, m.r, m.x, boxes["m.Slow"].x)
	}
	if strings.Contains(body, "<script>window.pwned") {
		t.Error("a frame's name is on the page unescaped")
	}
	for _, want := range []string{
		`Largest changes in self time: <code>m.Slow &#43;58.3 (25% → 83.3%)</code>`,
		"The strongest colour is the largest change, 58.3 points.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the job page lacks %q", want)
		}
	}
}

// TestBrowser_Flame draws the flame graph in headless Chromium. Every box
// is there with scripts off. Each label fits its box in the font the
// browser really uses. The colours are the classes', and a frame's name
// runs nothing.
func TestBrowser_Flame(t *testing.T) {
	testenv.Once(t) // Chromium takes 10-20 seconds to start on a busy machine
	db := newTestDB(t)
	src := newStoreSource(db)
	flameJob(t, db, src, "job-flame")
	origin := newTestServer(t, src)
	b := browser.New(t)

	b.Open(t, origin+"/jobs/job-flame", "svg.flame")
	problems, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [];
		const svg = document.querySelector("svg.flame");
		const r = svg.getBoundingClientRect();
		if (r.width < 500 || r.height < 50) out.push("the graph is " + r.width + "×" + r.height);
		for (const g of svg.querySelectorAll("g")) {
			const rect = g.querySelector("rect"), text = g.querySelector("text");
			const name = g.querySelector("title").textContent.split("\n")[0];
			if (text && text.getComputedTextLength() > rect.width.baseVal.value) {
				out.push(name + ": its label is " + text.getComputedTextLength() + " wide in a box of " + rect.width.baseVal.value);
			}
			const [R, , B] = getComputedStyle(rect).fill.match(/\d+/g).map(Number);
			if (g.classList.contains("more") && !(R > B)) out.push(name + " is more but not red");
			if (g.classList.contains("less") && !(B > R)) out.push(name + " is less but not blue");
		}
		if (window.pwned) out.push("a frame's name ran as a script");
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if n := b.Count(t, "svg.flame text"); n < 5 {
		t.Errorf("%d boxes are labelled, want most", n)
	}

	b.Scripts(t, false)
	defer b.Scripts(t, true)
	b.Open(t, origin+"/jobs/job-flame", "svg.flame")
	if n, want := b.Count(t, "svg.flame g rect"), len(flameSummary().Flame); n != want {
		t.Errorf("with scripts off, the graph has %d boxes, want %d", n, want)
	}
	b.CheckLocal(t, origin)
}
